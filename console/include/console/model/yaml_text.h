// A JSON value rendered as block-style YAML for the console's object view and its diffs, laid out
// as `kubectl get -o yaml` lays objects out: two-space indents, sequences under a key at the key's
// own indent, multi-line strings as literal blocks, strings quoted only where plain text would
// read back as something else ("true", "42", "2024-06-01T...", ": ").
//
// metadata.managedFields is long, changes on every write and is rarely what a reader wants, so by
// default it is folded into one comment line ("# managedFields: 3 entries (folded)"); diffs then
// show only the changes a person made.
//
// Keys come in the JSON value's own order (nlohmann::json keeps them sorted, which for a
// Kubernetes object reads apiVersion, kind, metadata, spec, status). Display text only: the
// console never sends it back to the server.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace console::model {

enum class ManagedFields { Fold, Show };

// Always ends with a newline. Empty objects and arrays render as {} and [].
std::string to_yaml(const nlohmann::json& value,
                    ManagedFields managed_fields = ManagedFields::Fold);

}  // namespace console::model
