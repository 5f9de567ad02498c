// Merging two lists of pod tolerations (upstream's pkg/util/tolerations.MergeTolerations, which
// RuntimeClass uses to add its class's tolerations to a pod): the first list then the second,
// leaving out any toleration another one already tolerates a superset of; of two equal ones the
// first stays. E.g. merging [{key: a, operator: Equal, value: x}] with [{operator: Exists}]
// keeps only {operator: Exists}. Pure; safe from any thread.
#pragma once

#include <nlohmann/json.hpp>

namespace apiserver::admission {

// Whether toleration `wide` tolerates everything `narrow` does (isSuperset).
bool tolerates_superset(const nlohmann::json& wide, const nlohmann::json& narrow);

// The merged list (elements that are not objects are left out).
nlohmann::json merge_tolerations(const nlohmann::json& first, const nlohmann::json& second);

}  // namespace apiserver::admission
