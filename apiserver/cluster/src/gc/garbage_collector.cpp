#include "gc/garbage_collector.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "apiserver/log.h"
#include "client/objects.h"

namespace cluster::gc {
namespace {

constexpr auto kDiscoveryPeriod = std::chrono::seconds(30);
constexpr int kEditAttempts = 5;
const std::string kDiscoveryKey = "discovery";

}  // namespace

GarbageCollector::GarbageCollector(const Client& client, const common::Clock& clock)
    : Controller("garbage-collector-controller", clock),
      client_(client),
      events_(client, "garbage-collector-controller", "", clock) {}

GarbageCollector::~GarbageCollector() {
  stop();
  stop_informers();
}

void GarbageCollector::start() {
  if (auto failed = refresh()) {
    apiserver::log::error(name() + ": discovery: " + *failed + "; retrying");
    queue().add_rate_limited(kDiscoveryKey);
    return;
  }
  requeue_after(kDiscoveryKey, kDiscoveryPeriod);
}

void GarbageCollector::stop_informers() {
  std::lock_guard lock(informers_mu_);
  stopping_ = true;
  for (auto& [key, informer] : informers_) {
    informer->stop();
  }
}

std::optional<std::string> GarbageCollector::sync(const std::string& key) {
  if (key == kDiscoveryKey) {
    requeue_after(kDiscoveryKey, kDiscoveryPeriod);
    return refresh();
  }
  if (key.starts_with("delete:")) {
    return attempt_to_delete(key.substr(7));
  }
  if (key.starts_with("orphan:")) {
    return orphan_dependents(key.substr(7));
  }
  return std::nullopt;
}

std::optional<std::string> GarbageCollector::refresh() {
  auto found = discover(client_);
  if (!found) {
    return "discovery: " + found.error();
  }
  discovery_ = std::move(*found);
  std::map<std::string, ResourceRef> wanted;
  for (const ResourceRef& r : discovery_.watched) {
    wanted.emplace(resource_key(r), r);
  }
  std::vector<Informer*> started;
  std::vector<std::unique_ptr<Informer>> gone;
  {
    std::lock_guard lock(informers_mu_);
    if (stopping_) {
      return std::nullopt;
    }
    for (auto it = informers_.begin(); it != informers_.end();) {
      const std::string gv = it->second->resource().api_version();
      const bool failed = std::find(discovery_.failed.begin(), discovery_.failed.end(), gv) !=
                          discovery_.failed.end();
      if (wanted.count(it->first) == 0 && !failed) {
        gone.push_back(std::move(it->second));
        it = informers_.erase(it);
      } else {
        ++it;
      }
    }
    for (const auto& entry : wanted) {
      const auto& key = entry.first;
      const ResourceRef ref = entry.second;  // a copy the handlers capture
      if (informers_.count(key) != 0) {
        continue;
      }
      auto informer = std::make_unique<Informer>(client_, ref, Query{}, clock());
      auto enqueue = [this](const std::vector<std::string>& keys) {
        for (const std::string& k : keys) {
          queue().add(k);
        }
      };
      informer->add_handlers(
          {.added = [this, ref, enqueue](const json& o) { enqueue(graph_.observe(ref, o)); },
           .updated = [this, ref, enqueue](const json&,
                                           const json& o) { enqueue(graph_.observe(ref, o)); },
           .deleted = [this, enqueue](const json& o) { enqueue(graph_.forget(o)); }});
      started.push_back(informer.get());
      informers_.emplace(key, std::move(informer));
    }
  }
  // A resource no longer served (a custom resource's definition went): its objects are gone.
  for (auto& informer : gone) {
    informer->stop();
    for (const ObjectPtr& o : informer->list()) {
      for (const std::string& k : graph_.forget(*o)) {
        queue().add(k);
      }
    }
  }
  // Only this thread erases from informers_, so the pointers stay valid unlocked.
  for (Informer* informer : started) {
    informer->start();
  }
  return std::nullopt;
}

common::Result<OwnerState> GarbageCollector::owner_state(const json& dependent,
                                                         const OwnerReference& owner) {
  using Out = common::Result<OwnerState>;
  const std::string dependent_ns = namespace_of(dependent);
  auto from_graph = [&](const std::string& ns) -> std::optional<OwnerState> {
    auto node = graph_.node(owner.uid);
    if (!node || node->kind != owner.kind || node->namespace_ != ns) {
      return std::nullopt;
    }
    return node->deleting_dependents ? OwnerState::WaitingForDependentsDeletion : OwnerState::Solid;
  };
  auto resource = discovery_.resource_for(owner.api_version, owner.kind);
  if (!resource) {
    // Not served (yet): only the graph can tell.
    if (auto state = from_graph(dependent_ns)) {
      return *state;
    }
    if (auto state = from_graph("")) {
      return *state;
    }
    return Out::failure("no resource serves " + owner.api_version + " " + owner.kind);
  }
  if (resource->namespaced && dependent_ns.empty()) {
    events_.record(dependent, "Warning", "OwnerRefInvalidNamespace",
                   "ownerRef [" + owner.api_version + "/" + owner.kind + ", namespace: , name: " +
                       owner.name + ", uid: " + owner.uid + "] does not exist in namespace \"\"");
    return OwnerState::Dangling;
  }
  const std::string ns = resource->namespaced ? dependent_ns : "";
  if (auto state = from_graph(ns)) {
    return *state;
  }
  // Not in the graph: the informer may be behind, so ask the server before calling it gone.
  auto live = client_.get(resource->object(ns, owner.name));
  if (!live) {
    if (live.error().not_found()) {
      return OwnerState::Dangling;
    }
    return Out::failure("getting owner " + owner.kind + " " + owner.name + ": " +
                        live.error().message);
  }
  if (uid_of(*live) != owner.uid) {
    return OwnerState::Dangling;
  }
  if (being_deleted(*live) && has_finalizer(*live, kForegroundFinalizer)) {
    return OwnerState::WaitingForDependentsDeletion;
  }
  return OwnerState::Solid;
}

std::optional<std::string> GarbageCollector::attempt_to_delete(const std::string& uid) {
  auto node = graph_.node(uid);
  if (!node) {
    return std::nullopt;
  }
  if (node->deleting_dependents) {
    return delete_dependents(*node);
  }
  if (node->being_deleted || node->owners.empty()) {
    return std::nullopt;
  }
  const std::string path = node->resource.object(node->namespace_, node->name);
  auto live = client_.get(path);
  if (!live) {
    return live.error().not_found()
               ? std::nullopt
               : std::optional<std::string>("getting " + path + ": " + live.error().message);
  }
  if (uid_of(*live) != uid || being_deleted(*live)) {
    return std::nullopt;
  }
  const std::vector<OwnerReference> owners = owner_references_of(*live);
  std::map<std::string, OwnerState> states;
  for (const OwnerReference& owner : owners) {
    auto state = owner_state(*live, owner);
    if (!state) {
      return state.error();
    }
    states[owner.uid] = *state;
  }
  const Decision d = decide(owners, states, !graph_.dependents(uid).empty(), *live);
  switch (d.action) {
    case Decision::Action::None:
      return std::nullopt;
    case Decision::Action::RemoveReferences:
      return edit(path, uid, [&](json& o) { return remove_owner_references(o, d.remove_uids); });
    case Decision::Action::Delete: {
      apiserver::log::info(2, name() + ": deleting " + path + " (propagationPolicy " +
                                  d.propagation + "): its owners are gone");
      auto removed = client_.remove(path, {{"kind", "DeleteOptions"},
                                           {"apiVersion", "v1"},
                                           {"propagationPolicy", d.propagation},
                                           {"preconditions", {{"uid", uid}}}});
      if (!removed && !removed.error().not_found() && !removed.error().conflict()) {
        return "deleting " + path + ": " + removed.error().message;
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<std::string> GarbageCollector::delete_dependents(const Node& owner) {
  const std::vector<std::string> blocking = graph_.blocking_dependents(owner.uid);
  if (blocking.empty()) {
    return edit(owner.resource.object(owner.namespace_, owner.name), owner.uid,
                [](json& o) { return remove_finalizer(o, kForegroundFinalizer); });
  }
  // Wait for them: each one's deletion (or reference change) queues the owner again.
  for (const std::string& dep : blocking) {
    auto node = graph_.node(dep);
    if (node && !node->being_deleted) {
      queue().add("delete:" + dep);
    }
  }
  return std::nullopt;
}

std::optional<std::string> GarbageCollector::orphan_dependents(const std::string& uid) {
  auto owner = graph_.node(uid);
  if (!owner || !owner->orphaning) {
    return std::nullopt;
  }
  for (const std::string& dep : graph_.dependents(uid)) {
    auto node = graph_.node(dep);
    if (!node) {
      continue;
    }
    if (auto failed = edit(node->resource.object(node->namespace_, node->name), dep,
                           [&](json& o) { return remove_owner_references(o, {uid}); })) {
      return failed;
    }
  }
  return edit(owner->resource.object(owner->namespace_, owner->name), uid,
              [](json& o) { return remove_finalizer(o, kOrphanFinalizer); });
}

std::optional<std::string> GarbageCollector::edit(const std::string& path, const std::string& uid,
                                                  const std::function<bool(json&)>& change) {
  for (int attempt = 0; attempt < kEditAttempts; ++attempt) {
    auto live = client_.get(path);
    if (!live) {
      return live.error().not_found()
                 ? std::nullopt
                 : std::optional<std::string>("getting " + path + ": " + live.error().message);
    }
    if (uid_of(*live) != uid) {
      return std::nullopt;
    }
    json object = std::move(*live);
    if (!change(object)) {
      return std::nullopt;
    }
    auto written = client_.update(path, object);  // carries the resourceVersion read
    if (written || written.error().not_found()) {
      return std::nullopt;
    }
    if (!written.error().conflict()) {
      return "updating " + path + ": " + written.error().message;
    }
  }
  return "updating " + path + ": still conflicting after " + std::to_string(kEditAttempts) +
         " attempts";
}

}  // namespace cluster::gc
