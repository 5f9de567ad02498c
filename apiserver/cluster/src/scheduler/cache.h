// What the scheduler knows of each node, kept current from its informers' changes instead of
// recounted on every attempt (kube-scheduler's cache of NodeInfo): the Node, the pods bound (or
// assumed bound) to it with what each requests, and the sums the filters and scores read. An
// attempt then costs per node, not per pod of the cluster, except where a plugin has to look at
// other pods (pod affinity, topology spread), as upstream's do.
//
// Worked example: pod web-1 (requests 100m) is bound to node-1. set_pod(web-1) finds nodeName
// node-1, adds a PodInfo under "default/web-1" to node-1's pods and 0.1 cpu to its requested
// sum. The scheduler then binds web-2 to node-2 and assume()s it there at once; when the
// informer later shows web-2 with nodeName node-2, set_pod replaces the assumed entry. Deleting
// web-1 (or its turning Succeeded) takes its 0.1 cpu off node-1.
//
// Not thread-safe: the scheduler calls it under its own mutex.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheduler/fit.h"

namespace cluster {

using nlohmann::json;

// One pod placed on a node, with what the plugins read of it computed once.
struct PodInfo {
  std::shared_ptr<const json> pod;
  std::string key;  // "namespace/name"
  std::string namespace_;
  const json* labels = nullptr;  // metadata.labels of `pod` (an empty object when none)
  Resources requested;           // pod_requests
  Resources non_zero;            // pod_requests_non_zero
  bool with_affinity = false;    // has pod affinity or anti-affinity terms
  bool required_anti = false;    // has required anti-affinity terms
  bool terminating = false;      // has a deletionTimestamp
  bool assumed = false;          // bound by the scheduler, not yet seen bound by the informer
};

struct NodeInfo {
  std::string name;
  std::shared_ptr<const json> node;     // null while only pods name the node
  std::map<std::string, PodInfo> pods;  // by key
  Resources requested;                  // the pods' requests summed; pods = how many
  Resources non_zero;                   // the pods' non-zero requests summed
  size_t with_affinity = 0;             // pods with pod affinity or anti-affinity terms
  size_t required_anti = 0;             // pods with required anti-affinity terms
};

class SchedulerCache {
 public:
  // A Node added or changed.
  void set_node(std::shared_ptr<const json> node);
  void remove_node(const std::string& name);
  // A pod as the informer shows it: counted on its node while bound and not done (Succeeded or
  // Failed); an assumed pod stays where it was assumed until the informer shows it bound.
  void set_pod(std::shared_ptr<const json> pod);
  void remove_pod(const std::string& key);
  // A pod the scheduler just bound to `node`.
  void assume(const std::shared_ptr<const json>& pod, const std::string& node);

  // The nodes that have a Node object, by name.
  std::vector<const NodeInfo*> nodes() const;
  const NodeInfo* node(const std::string& name) const;
  // Where a pod is counted ("" when nowhere).
  std::string node_of(const std::string& key) const;

 private:
  void place(const std::string& node, PodInfo info);
  void unplace(const std::string& key);

  std::map<std::string, NodeInfo> nodes_;     // by name
  std::map<std::string, std::string> where_;  // pod key -> node name
};

// "namespace/name" of a pod.
std::string pod_key(const json& pod);

}  // namespace cluster
