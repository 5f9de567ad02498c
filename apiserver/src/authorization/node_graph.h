// What the node authorizer knows of each node: the pods bound to it and the objects they use, as
// upstream's node authorizer graph holds them (pod -> node; secret, configmap, persistent volume
// claim, service account, resource claim -> pod; persistent volume -> its claim; secret -> the
// persistent volume that names it; volume attachment -> node). Fed from the storage watch of
// pods, persistent volumes and volume attachments (ObjectFollower).
//
// Example: pod web in namespace shop, bound to node-1, mounts secret tls and claim data; volume
// pv-7 is bound to shop/data. node-1 may then get shop's secret tls, claim data, volume pv-7 and
// pod web; node-2 none of them.
//
// Threads: related() from any thread (it waits, briefly, until the writes made so far are in).
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "authorization/object_follower.h"

namespace apiserver::authorization {

// The kinds of objects the graph relates to nodes.
enum class NodeObject {
  Pod,
  Secret,
  ConfigMap,
  PersistentVolumeClaim,
  PersistentVolume,
  ServiceAccount,
  ResourceClaim,
  VolumeAttachment
};

// The objects of a pod that a node running it may read: (kind, name) in the pod's namespace.
// Pure: what upstream's VisitPodSecretNames and VisitPodConfigmapNames find, the service account,
// the claims of persistentVolumeClaim and ephemeral volumes, the resource claims.
std::vector<std::pair<NodeObject, std::string>> pod_references(const nlohmann::json& pod);

class NodeGraph {
 public:
  // Registers the storage write observers: construct before serving.
  explicit NodeGraph(storage::Storage& storage);

  void start();
  // Whether `node` runs a pod related to the object (for a pod: whether it is bound to `node`).
  bool related(const std::string& node, NodeObject kind, const std::string& ns,
               const std::string& name);
  // Stops following the storage (before what listens to it goes away).
  void stop() { follower_.stop(); }
  ObjectFollower& follower() { return follower_; }

 private:
  using Key = std::tuple<NodeObject, std::string, std::string>;  // kind, namespace, name
  struct Pod {
    std::string node;
    std::vector<Key> references;
  };
  struct Volume {
    std::string claim_namespace, claim_name;
    std::vector<std::pair<std::string, std::string>> secrets;  // namespace, name
  };

  void apply(bool reset, const std::vector<ObjectChange>& changes);
  void remove_pod_locked(const std::string& key);
  bool referenced_locked(const std::string& node, const Key& key) const;

  mutable std::mutex mu_;            // protects everything below
  std::map<std::string, Pod> pods_;  // by "<ns>/<name>"
  // For each referenced object: the nodes of the pods that reference it, with their counts.
  std::map<Key, std::map<std::string, int>> referenced_by_;
  std::map<std::string, Volume> volumes_;           // persistent volumes by name
  std::map<std::string, std::string> attachments_;  // volume attachment -> node
  ObjectFollower follower_;
};

}  // namespace apiserver::authorization
