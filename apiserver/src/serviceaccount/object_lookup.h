// The reads of objects the validators share: an object by name, with kube-apiserver's not-found
// text as the error, and the deletion timestamp test.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "serviceaccount/validators.h"

namespace apiserver::serviceaccount {

// The object, or the error: `serviceaccounts "x" not found`, or the getter's.
common::Result<nlohmann::json> lookup(const ObjectGetter& get, const std::string& resource,
                                      const std::string& ns, const std::string& name);

// metadata.uid, or "".
std::string uid_of(const nlohmann::json& object);

// Whether metadata.deletionTimestamp is set, and (when `cutoff` is given) before it.
bool being_deleted(const nlohmann::json& object,
                   std::optional<std::chrono::system_clock::time_point> cutoff = std::nullopt);

}  // namespace apiserver::serviceaccount
