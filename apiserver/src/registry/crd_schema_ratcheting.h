// Validation ratcheting of custom resources (CRDValidationRatcheting, on by default in v1.32): on
// update, schema errors of a value that is unchanged from the old object are not reported.
//
// How upstream decides "unchanged" (k8s.io/apiserver pkg/cel/common CorrelatedObject): an old
// value is correlated with a new one by walking both objects along the structural schema. A map
// field correlates when both objects have it and the schema declares it (as a property or through
// an additionalProperties schema); a list item correlates only in an x-kubernetes-list-type: map
// list, with the old item of the same keys. Atomic and set lists are compared whole. A correlated
// value is unchanged when it deep-equals the old one (int64 and float64 never equal), maps and
// map-lists compared member by member through their correlations.
//
// Worked example: old spec {name: "toolong", size: 3}, new spec {name: "toolong", size: 4}, with
// maxLength 5 on name: spec.name correlates and is unchanged, so its Too long error is dropped;
// spec itself changed, so an error of spec's own (required, oneOf, ...) is still reported.
//
// Thread-safety: values only; the referenced JSON and schema must outlive a Correlation.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>

#include "registry/crd_schema_node.h"

namespace apiserver::registry {

struct Correlation {
  const nlohmann::json* old = nullptr;      // the old value at this place
  const CrdSchema::Node* schema = nullptr;  // the structural schema at this place
};

// The correlation of now[key] (`now` is the new value at `parent`), if any.
std::optional<Correlation> correlate_key(const Correlation& parent, const nlohmann::json& now,
                                         const std::string& key);
// The correlation of now[index], if any (map-type lists only).
std::optional<Correlation> correlate_index(const Correlation& parent, const nlohmann::json& now,
                                           size_t index);
// Answers of unchanged() by new value, so that the ancestors of a value compare it once (as
// upstream caches its DeepEqual per correlated node). Valid for one object pair.
using UnchangedMemo = std::unordered_map<const nlohmann::json*, bool>;

// Whether `now` is unchanged from the old value it is correlated with.
bool unchanged(const Correlation& c, const nlohmann::json& now, UnchangedMemo& memo);

}  // namespace apiserver::registry
