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
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace console::model {

enum class ManagedFields { Fold, Show };

// Always ends with a newline. Empty objects and arrays render as {} and [].
std::string to_yaml(const nlohmann::json& value,
                    ManagedFields managed_fields = ManagedFields::Fold);

// Reads one YAML document (what a person typed in the console's editor) as JSON, typing plain
// scalars as the API server does: null, true/false, integers and floats; quoted scalars stay
// strings. Fails ("line 3, column 5: ...") when it is not YAML or holds more than one document.
// Never throws.
common::Result<nlohmann::json> parse_yaml(std::string_view text);

}  // namespace console::model
