// The checks of one label requirement (labels.NewRequirement) with kube-apiserver's field error
// texts, shared by the labelSelector parser and metav1.LabelSelector conversion, and the integer
// reading the Gt/Lt operators use when matching.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "registry/selectors.h"

namespace apiserver::registry {

// Empty when valid; else the field error for the key at `path`.
std::string validate_label_key(std::string_view key, const std::string& path);

// strconv.ParseInt(s, 10, 64) succeeds.
bool parse_int64(std::string_view s, int64_t& out);

// labels.NewRequirement without a path option: returns the aggregated field errors, or "".
// `values` is nullopt for a Go nil slice (it only shows in the rendering of the value).
std::string check_requirement(const std::string& key, LabelOperator op,
                              const std::optional<std::vector<std::string>>& values);

}  // namespace apiserver::registry
