#include "gc/graph.h"

#include <algorithm>

#include "client/objects.h"

namespace cluster::gc {
namespace {

std::string delete_key(const std::string& uid) {
  return "delete:" + uid;
}

bool blocks(const std::vector<OwnerReference>& owners, const std::string& uid) {
  return std::any_of(owners.begin(), owners.end(), [&](const OwnerReference& o) {
    return o.uid == uid && o.block_owner_deletion;
  });
}

}  // namespace

std::vector<OwnerReference> owner_references_of(const json& object) {
  std::vector<OwnerReference> refs;
  const json* list = at(object, {"metadata", "ownerReferences"});
  if (list == nullptr || !list->is_array()) {
    return refs;
  }
  for (const json& ref : *list) {
    OwnerReference r{string_at(ref, {"apiVersion"}), string_at(ref, {"kind"}),
                     string_at(ref, {"name"}), string_at(ref, {"uid"}),
                     bool_at(ref, {"blockOwnerDeletion"}, false)};
    if (!r.uid.empty()) {
      refs.push_back(std::move(r));
    }
  }
  return refs;
}

bool has_finalizer(const json& object, const std::string& finalizer) {
  const json* list = at(object, {"metadata", "finalizers"});
  return list != nullptr && list->is_array() &&
         std::find(list->begin(), list->end(), finalizer) != list->end();
}

bool remove_finalizer(json& object, const std::string& finalizer) {
  if (!has_finalizer(object, finalizer)) {
    return false;
  }
  json& list = object["metadata"]["finalizers"];
  json kept = json::array();
  for (const json& f : list) {
    if (f != finalizer) {
      kept.push_back(f);
    }
  }
  list = std::move(kept);
  return true;
}

bool remove_owner_references(json& object, const std::set<std::string>& uids) {
  const json* list = at(object, {"metadata", "ownerReferences"});
  if (list == nullptr || !list->is_array()) {
    return false;
  }
  json kept = json::array();
  for (const json& ref : *list) {
    if (uids.count(string_at(ref, {"uid"})) == 0) {
      kept.push_back(ref);
    }
  }
  if (kept.size() == list->size()) {
    return false;
  }
  json& metadata = object["metadata"];
  if (kept.empty()) {
    metadata.erase("ownerReferences");
  } else {
    metadata["ownerReferences"] = std::move(kept);
  }
  return true;
}

Decision decide(const std::vector<OwnerReference>& owners,
                const std::map<std::string, OwnerState>& states, bool has_dependents,
                const json& object) {
  Decision d;
  if (owners.empty()) {
    return d;
  }
  bool solid = false;
  bool waiting = false;
  for (const OwnerReference& owner : owners) {
    auto it = states.find(owner.uid);
    const OwnerState state = it == states.end() ? OwnerState::Solid : it->second;
    if (state == OwnerState::Solid) {
      solid = true;
    } else {
      waiting = waiting || state == OwnerState::WaitingForDependentsDeletion;
      d.remove_uids.insert(owner.uid);
    }
  }
  if (solid) {
    d.action = d.remove_uids.empty() ? Decision::Action::None : Decision::Action::RemoveReferences;
    return d;
  }
  d.remove_uids.clear();
  d.action = Decision::Action::Delete;
  if (waiting && has_dependents) {
    d.propagation = "Foreground";
  } else if (has_finalizer(object, kOrphanFinalizer)) {
    d.propagation = "Orphan";
  } else if (has_finalizer(object, kForegroundFinalizer)) {
    d.propagation = "Foreground";
  } else {
    d.propagation = "Background";
  }
  return d;
}

std::vector<std::string> Graph::observe(const ResourceRef& resource, const json& object) {
  Node n;
  n.resource = resource;
  n.api_version = string_at(object, {"apiVersion"});
  n.kind = string_at(object, {"kind"});
  n.namespace_ = namespace_of(object);
  n.name = name_of(object);
  n.uid = uid_of(object);
  n.owners = owner_references_of(object);
  n.being_deleted = being_deleted(object);
  n.deleting_dependents = n.being_deleted && has_finalizer(object, kForegroundFinalizer);
  n.orphaning = n.being_deleted && has_finalizer(object, kOrphanFinalizer);
  if (n.uid.empty()) {
    return {};
  }
  std::vector<std::string> keys;
  std::lock_guard lock(mu_);
  auto old = nodes_.find(n.uid);
  const Node* before = old == nodes_.end() ? nullptr : &old->second;
  // An owner waiting for its dependents looks again when this one stops blocking it.
  if (before != nullptr) {
    for (const OwnerReference& o : before->owners) {
      auto owner = nodes_.find(o.uid);
      if (o.block_owner_deletion && !blocks(n.owners, o.uid) && owner != nodes_.end() &&
          owner->second.deleting_dependents) {
        keys.push_back(delete_key(o.uid));
      }
    }
  }
  // A new reference to an owner not seen (maybe gone), deleting its dependents, or namespaced
  // while this object is not (an invalid reference): look at it.
  for (const OwnerReference& o : n.owners) {
    const bool known =
        before != nullptr && std::any_of(before->owners.begin(), before->owners.end(),
                                         [&](const OwnerReference& b) { return b.uid == o.uid; });
    auto owner = nodes_.find(o.uid);
    if (!known && (owner == nodes_.end() || owner->second.deleting_dependents ||
                   (n.namespace_.empty() && !owner->second.namespace_.empty()))) {
      keys.push_back(delete_key(n.uid));
      break;
    }
  }
  if (n.orphaning && (before == nullptr || !before->orphaning)) {
    keys.push_back("orphan:" + n.uid);
  }
  if (n.deleting_dependents && (before == nullptr || !before->deleting_dependents)) {
    keys.push_back(delete_key(n.uid));
    if (auto deps = dependents_.find(n.uid); deps != dependents_.end()) {
      for (const std::string& dep : deps->second) {
        keys.push_back(delete_key(dep));
      }
    }
  }
  if (before != nullptr) {
    unlink_locked(*before);
  }
  link_locked(n);
  nodes_[n.uid] = std::move(n);
  return keys;
}

std::vector<std::string> Graph::forget(const json& object) {
  const std::string uid = uid_of(object);
  std::vector<std::string> keys;
  std::lock_guard lock(mu_);
  auto it = nodes_.find(uid);
  if (it == nodes_.end()) {
    return keys;
  }
  if (auto deps = dependents_.find(uid); deps != dependents_.end()) {
    for (const std::string& dep : deps->second) {
      keys.push_back(delete_key(dep));
    }
  }
  for (const OwnerReference& o : it->second.owners) {
    auto owner = nodes_.find(o.uid);
    if (o.block_owner_deletion && owner != nodes_.end() && owner->second.deleting_dependents) {
      keys.push_back(delete_key(o.uid));
    }
  }
  unlink_locked(it->second);
  nodes_.erase(it);
  return keys;
}

std::optional<Node> Graph::node(const std::string& uid) const {
  std::lock_guard lock(mu_);
  auto it = nodes_.find(uid);
  if (it == nodes_.end()) {
    return std::nullopt;
  }
  return it->second;
}

std::vector<std::string> Graph::dependents(const std::string& uid) const {
  std::lock_guard lock(mu_);
  auto it = dependents_.find(uid);
  if (it == dependents_.end()) {
    return {};
  }
  return {it->second.begin(), it->second.end()};
}

std::vector<std::string> Graph::blocking_dependents(const std::string& uid) const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  auto it = dependents_.find(uid);
  if (it == dependents_.end()) {
    return out;
  }
  for (const std::string& dep : it->second) {
    auto node = nodes_.find(dep);
    if (node != nodes_.end() && blocks(node->second.owners, uid)) {
      out.push_back(dep);
    }
  }
  return out;
}

size_t Graph::size() const {
  std::lock_guard lock(mu_);
  return nodes_.size();
}

void Graph::link_locked(const Node& node) {
  for (const OwnerReference& o : node.owners) {
    dependents_[o.uid].insert(node.uid);
  }
}

void Graph::unlink_locked(const Node& node) {
  for (const OwnerReference& o : node.owners) {
    auto it = dependents_.find(o.uid);
    if (it == dependents_.end()) {
      continue;
    }
    it->second.erase(node.uid);
    if (it->second.empty()) {
      dependents_.erase(it);
    }
  }
}

}  // namespace cluster::gc
