// The garbage collector's graph, as kube-controller-manager's GraphBuilder keeps it: one node per
// object the informers saw (by uid), with the owners its ownerReferences name, and for every uid
// named as an owner the dependents that name it (the owner itself may be unseen: deleted, in a
// resource nobody watches, or never there). Informer events update it and answer the work the
// change calls for, as queue keys:
//
//   "delete:UID"  look at the object: delete it if every owner is gone, drop the references to
//                 the gone ones if some owner stays; for an owner being deleted in the foreground,
//                 delete its dependents and remove its finalizer once no dependent blocks it
//   "orphan:UID"  the owner is being deleted with the orphan finalizer: free its dependents
//
// Worked example: dependent D (uid d) names owner O (uid o).
//   observe(D)        nodes {d}, dependents {o: [d]}; o unseen  -> "delete:d" (is O there?)
//   observe(O)        nodes {d, o}                               -> nothing to do
//   forget(O)         nodes {d}; o's dependents stay             -> "delete:d" (O went)
//
// A dependent is looked at too when an owner it names was seen under other coordinates (another
// apiVersion, kind or name) or, being namespaced, in another namespace than the dependent's: the
// owner is then looked up live where the reference says, and is likely gone.
//
// The decision taken for one object given what its owners turned out to be (decide) and the
// edits of metadata it leads to are pure, so tests check them without a server.
//
// Thread safety: Graph is locked inside; informer threads write, the worker reads copies.
#pragma once

#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/api_client.h"

namespace cluster::gc {

using nlohmann::json;

inline constexpr const char* kOrphanFinalizer = "orphan";
inline constexpr const char* kForegroundFinalizer = "foregroundDeletion";

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool block_owner_deletion = false;
};

// The object's metadata.ownerReferences (entries without a uid are skipped).
std::vector<OwnerReference> owner_references_of(const json& object);

// Removes the ownerReferences whose uid is in `uids` (metadata.ownerReferences goes when none is
// left); false when none matched.
bool remove_owner_references(json& object, const std::set<std::string>& uids);
// Turns every blockOwnerDeletion of the object's ownerReferences to false; false when none was
// true.
bool unblock_owner_references(json& object);

// What an owner turned out to be, for one dependent.
enum class OwnerState {
  Solid,                         // there, with the referenced uid, not deleting its dependents
  Dangling,                      // absent, or there with another uid (or an invalid reference)
  WaitingForDependentsDeletion,  // there and being deleted in the foreground
};

struct Decision {
  enum class Action { None, RemoveReferences, Delete };
  Action action = Action::None;
  std::set<std::string> remove_uids;  // RemoveReferences: the owners to drop
  std::string propagation;            // Delete: "Background", "Foreground" or "Orphan"
  // Delete in the foreground because an owner waits for this object and it has dependents: if
  // one of those waits for its own dependents too, the references stop blocking first (a cycle
  // would wait forever).
  bool owner_waits = false;
};

// Upstream's attemptToDeleteItem: with an owner still solid, drop the references to the dangling
// owners and to those waiting for their dependents; with none, delete the object: in the
// foreground when an owner waits for it and it has dependents of its own (so the owner waits for
// them too), else as its own finalizers ask, else in the background. `states` holds one entry per
// owner uid.
Decision decide(const std::vector<OwnerReference>& owners,
                const std::map<std::string, OwnerState>& states, bool has_dependents,
                const json& object);

struct Node {
  ResourceRef resource;  // where the object lives
  std::string api_version;
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::vector<OwnerReference> owners;
  bool being_deleted = false;
  bool deleting_dependents = false;  // being deleted with the foregroundDeletion finalizer
  bool orphaning = false;            // being deleted with the orphan finalizer
};

// Whether the reference names `node` by apiVersion, kind and name as it was seen.
bool names_node(const OwnerReference& ref, const Node& node);

// A namespaced owner seen in another namespace than its dependent's (or named by a cluster-scoped
// dependent): what an OwnerRefInvalidNamespace event reports.
struct InvalidNamespace {
  Node dependent;
  OwnerReference owner;
};

class Graph {
 public:
  // Records the object's latest state (seen in `resource`); answers the keys to queue, and adds
  // to `invalid` (when given) the references that name an owner seen in another namespace.
  std::vector<std::string> observe(const ResourceRef& resource, const json& object,
                                   std::vector<InvalidNamespace>* invalid = nullptr);
  // The object was deleted; answers the keys to queue. An owner with dependents is remembered
  // as absent.
  std::vector<std::string> forget(const json& object);

  // Owners known to be gone ("absent"), as upstream's absentOwnerCache: by the reference's
  // apiVersion, kind, name and uid, in `namespace_` ("" for a cluster-scoped owner); the last
  // kAbsentOwners marked are kept.
  static constexpr size_t kAbsentOwners = 500;
  void mark_absent(const OwnerReference& owner, const std::string& namespace_);
  bool absent(const OwnerReference& owner, const std::string& namespace_) const;

  std::optional<Node> node(const std::string& uid) const;
  // The uids of the objects that name `uid` as an owner.
  std::vector<std::string> dependents(const std::string& uid) const;
  // Those whose reference to `uid` has blockOwnerDeletion.
  std::vector<std::string> blocking_dependents(const std::string& uid) const;
  size_t size() const;

 private:
  void link_locked(const Node& node);
  void unlink_locked(const Node& node);
  void mark_absent_locked(const std::string& key);

  mutable std::mutex mu_;  // protects nodes_, dependents_ and the absent owners
  std::map<std::string, Node> nodes_;
  std::map<std::string, std::set<std::string>> dependents_;  // owner uid -> dependent uids
  std::list<std::string> absent_order_;                      // most recently marked first
  std::map<std::string, std::list<std::string>::iterator> absent_;
};

}  // namespace cluster::gc
