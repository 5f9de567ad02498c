// ResourceQuota's evaluators (k8s.io/kubernetes pkg/quota/v1/evaluator/core and the apiserver's
// generic object-count evaluator): for one kind of object, which quota resource names it is
// measured in, its usage, whether a quota's scopes select it, and the constraints a quota puts
// on it. Pure functions over JSON; thread-safe.
//
// Example: a pod with one container asking cpu 250m (limit 500m) has the usage
//   {pods: 1, count/pods: 1, cpu: 250m, requests.cpu: 250m, limits.cpu: 500m}
// and a quota whose status.hard names {pods, limits.memory} tracks pods and limits.memory of it;
// limits.memory makes the container's memory limit required.
#pragma once

#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "admission/plugins/resource_list.h"

namespace apiserver::admission::quota {

using Usage = std::map<std::string, Amount>;

// The evaluator of one resource (group "" for core).
class Evaluator {
 public:
  Evaluator(std::string group, std::string resource);

  // Whether a write of this operation and subresource is measured (pods and object counts:
  // creates of the main resource; services and claims: creates and updates).
  bool handles(bool create, const std::string& subresource) const;
  // The names among `names` (a quota's status.hard) this evaluator measures.
  std::set<std::string> matching_resources(const std::set<std::string>& names) const;
  // What `object` uses.
  Usage usage(const nlohmann::json& object) const;
  // Whether every scope selector of `quota` selects `object` (object counts, services and
  // claims: never with any scope), and the quota measures one of its resources.
  bool matches(const nlohmann::json& quota, const nlohmann::json& object) const;
  // The constraints of `required` (the quota's names this evaluator measures) on `object`: ""
  // when met, else why not ("must specify limits.cpu for: c; requests.memory for: c").
  std::string constraints(const std::set<std::string>& required,
                          const nlohmann::json& object) const;

 private:
  enum class Kind { Pods, Services, Claims, ObjectCount };
  Kind kind_;
  std::string count_name_;   // count/<resource>[.<group>]
  std::string legacy_name_;  // "configmaps", ...: "" when the resource has none
};

// The names of a ResourceList (status.hard), sorted.
std::set<std::string> names_of(const nlohmann::json* list);

}  // namespace apiserver::admission::quota
