#include "gc/graph.h"

#include <algorithm>

#include "client/objects.h"

namespace cluster::gc {
namespace {

std::string delete_key(const std::string& uid) {
  return "delete:" + uid;
}

std::string absent_key(const OwnerReference& owner, const std::string& namespace_) {
  return owner.api_version + "\n" + owner.kind + "\n" + owner.name + "\n" + owner.uid + "\n" +
         namespace_;
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

bool unblock_owner_references(json& object) {
  json* list = object.contains("metadata") && object["metadata"].is_object() &&
                       object["metadata"].contains("ownerReferences")
                   ? &object["metadata"]["ownerReferences"]
                   : nullptr;
  if (list == nullptr || !list->is_array()) {
    return false;
  }
  bool changed = false;
  for (json& ref : *list) {
    if (ref.is_object() && bool_at(ref, {"blockOwnerDeletion"}, false)) {
      ref["blockOwnerDeletion"] = false;
      changed = true;
    }
  }
  return changed;
}

bool names_node(const OwnerReference& ref, const Node& node) {
  return ref.api_version == node.api_version && ref.kind == node.kind && ref.name == node.name;
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
    d.owner_waits = true;
  } else if (has_finalizer(object, kOrphanFinalizer)) {
    d.propagation = "Orphan";
  } else if (has_finalizer(object, kForegroundFinalizer)) {
    d.propagation = "Foreground";
  } else {
    d.propagation = "Background";
  }
  return d;
}

std::vector<std::string> Graph::observe(const ResourceRef& resource, const json& object,
                                        std::vector<InvalidNamespace>* invalid) {
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
  auto look_at = [&keys](const std::string& uid) {
    const std::string key = delete_key(uid);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      keys.push_back(key);
    }
  };
  auto report = [invalid](const Node& dependent, const OwnerReference& owner) {
    if (invalid != nullptr) {
      invalid->push_back({dependent, owner});
    }
  };
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
  // A new reference to an owner not seen (maybe gone), deleting its dependents, seen in another
  // namespace, or seen under other coordinates: look at this one.
  for (const OwnerReference& o : n.owners) {
    const bool known =
        before != nullptr && std::any_of(before->owners.begin(), before->owners.end(),
                                         [&](const OwnerReference& b) { return b.uid == o.uid; });
    if (known) {
      continue;
    }
    auto owner = nodes_.find(o.uid);
    if (owner == nodes_.end() || owner->second.deleting_dependents) {
      look_at(n.uid);
    } else if (!owner->second.namespace_.empty() && owner->second.namespace_ != n.namespace_) {
      report(n, o);
      look_at(n.uid);
    } else if (!names_node(o, owner->second)) {
      look_at(n.uid);
    }
  }
  // Seen for the first time: the dependents that name it otherwise than it is look again.
  if (before == nullptr) {
    if (auto deps = dependents_.find(n.uid); deps != dependents_.end()) {
      for (const std::string& dep_uid : deps->second) {
        auto dep = nodes_.find(dep_uid);
        if (dep == nodes_.end()) {
          continue;
        }
        for (const OwnerReference& o : dep->second.owners) {
          if (o.uid != n.uid) {
            continue;
          }
          if (!n.namespace_.empty() && dep->second.namespace_ != n.namespace_) {
            report(dep->second, o);
            look_at(dep_uid);
          } else if (!names_node(o, n)) {
            look_at(dep_uid);
          }
        }
      }
    }
  }
  if (n.orphaning && (before == nullptr || !before->orphaning)) {
    keys.push_back("orphan:" + n.uid);
  }
  if (n.deleting_dependents && (before == nullptr || !before->deleting_dependents)) {
    look_at(n.uid);
    if (auto deps = dependents_.find(n.uid); deps != dependents_.end()) {
      for (const std::string& dep : deps->second) {
        look_at(dep);
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
  const Node& gone = it->second;
  if (auto deps = dependents_.find(uid); deps != dependents_.end()) {
    // Its dependents will ask for it by the coordinates it was seen under.
    mark_absent_locked(
        absent_key({gone.api_version, gone.kind, gone.name, gone.uid, false}, gone.namespace_));
    for (const std::string& dep : deps->second) {
      keys.push_back(delete_key(dep));
    }
  }
  for (const OwnerReference& o : gone.owners) {
    auto owner = nodes_.find(o.uid);
    if (o.block_owner_deletion && owner != nodes_.end() && owner->second.deleting_dependents) {
      keys.push_back(delete_key(o.uid));
    }
  }
  unlink_locked(gone);
  nodes_.erase(it);
  return keys;
}

void Graph::mark_absent(const OwnerReference& owner, const std::string& namespace_) {
  std::lock_guard lock(mu_);
  mark_absent_locked(absent_key(owner, namespace_));
}

bool Graph::absent(const OwnerReference& owner, const std::string& namespace_) const {
  std::lock_guard lock(mu_);
  return absent_.count(absent_key(owner, namespace_)) != 0;
}

void Graph::mark_absent_locked(const std::string& key) {
  if (auto it = absent_.find(key); it != absent_.end()) {
    absent_order_.erase(it->second);
  }
  absent_order_.push_front(key);
  absent_[key] = absent_order_.begin();
  if (absent_order_.size() > kAbsentOwners) {
    absent_.erase(absent_order_.back());
    absent_order_.pop_back();
  }
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
