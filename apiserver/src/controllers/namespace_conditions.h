// The conditions kube-controller-manager's namespace controller keeps on a Terminating namespace
// (what `kubectl describe namespace` shows while it waits): five types, each either its "all is
// well" False variant or, when something holds the deletion, True with the reason and message
// upstream gives, e.g. NamespaceContentRemaining "Some resources are remaining: pods. has 2
// resource instances". Pure functions, for the controller and its tests.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace apiserver::controllers {

// What one pass of deleting a namespace's content left behind.
struct ContentLeft {
  // "<resource>.<group>" (upstream's spelling: "pods." for the core group) -> objects left.
  std::map<std::string, int64_t> resources;
  // finalizer -> objects left that carry it.
  std::map<std::string, int64_t> finalizers;
  // Deletions that failed, in the server's words.
  std::vector<std::string> delete_errors;
};

// The five conditions for `left`, at `now` (RFC 3339), in upstream's order.
std::vector<nlohmann::json> namespace_conditions(const ContentLeft& left, const std::string& now);

// Merges `fresh` into status.conditions of `ns` as upstream does: a condition whose status,
// reason and message are unchanged keeps its lastTransitionTime. Returns whether anything
// changed.
bool merge_namespace_conditions(nlohmann::json& ns, const std::vector<nlohmann::json>& fresh);

}  // namespace apiserver::controllers
