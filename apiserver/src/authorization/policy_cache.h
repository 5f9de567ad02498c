// The RBAC objects as the authorizers read them: every Role, ClusterRole, RoleBinding and
// ClusterRoleBinding, parsed, in an immutable snapshot that the storage watch replaces on each
// change (ObjectFollower), as kube-apiserver's RBAC authorizer reads them from informers. A
// decision costs no storage read: it walks the bindings of one snapshot.
//
// Threads: current() and snapshot() from any thread; the snapshot they return never changes.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "authorization/object_follower.h"
#include "authorization/policy_rule.h"

namespace apiserver::authorization {

struct Subject {
  std::string kind;  // User, Group, ServiceAccount (anything else matches no one)
  std::string api_group;
  std::string name;
  std::string namespace_;
};

struct RoleRef {
  std::string api_group;
  std::string kind;  // Role or ClusterRole
  std::string name;
};

// A Role or ClusterRole (namespace_ empty). `labels` and `aggregation_rule` are the object's
// metadata.labels and aggregationRule as stored (null when absent), for the ClusterRole
// aggregation controller.
struct Role {
  std::string namespace_;
  std::string name;
  std::vector<PolicyRule> rules;
  nlohmann::json labels;
  nlohmann::json aggregation_rule;
};

// A RoleBinding or ClusterRoleBinding (namespace_ empty).
struct Binding {
  std::string namespace_;
  std::string name;
  RoleRef role_ref;
  std::vector<Subject> subjects;
};

struct Policy {
  using Roles = std::map<std::string, std::shared_ptr<const Role>, std::less<>>;
  using Bindings = std::map<std::string, std::shared_ptr<const Binding>, std::less<>>;
  Roles cluster_roles;
  Bindings cluster_role_bindings;
  std::map<std::string, Roles, std::less<>> roles;             // by namespace
  std::map<std::string, Bindings, std::less<>> role_bindings;  // by namespace
};

// Parsers of the stored objects (client data, validated by the registry; wrong types count as
// missing values).
Role role_from_json(const nlohmann::json& object);
Binding binding_from_json(const nlohmann::json& object);

class PolicyCache {
 public:
  // Registers the storage write observers: construct before serving.
  explicit PolicyCache(storage::Storage& storage);
  ~PolicyCache();

  // Lists the RBAC objects, then follows their changes.
  void start();
  // The newest snapshot, once every RBAC write made so far is in it (waiting at most a few
  // seconds for the watch; then the newest there is).
  std::shared_ptr<const Policy> current();
  // The newest snapshot, without waiting.
  std::shared_ptr<const Policy> snapshot() const;
  // Called on the follower's thread after each change of the snapshot (the ClusterRole
  // aggregation controller's trigger). Set before start().
  void on_change(std::function<void()> listener);
  // Stops following the storage (before what listens to it goes away).
  void stop() { follower_.stop(); }
  ObjectFollower& follower() { return follower_; }

 private:
  void apply(bool reset, const std::vector<ObjectChange>& changes);

  mutable std::mutex mu_;  // protects policy_
  std::shared_ptr<const Policy> policy_;
  std::vector<std::function<void()>> listeners_;  // set before start
  ObjectFollower follower_;
};

}  // namespace apiserver::authorization
