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
    rediscovered_ = false;
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
          {.added = [this, ref, enqueue](const json& o) { enqueue(observe(ref, o)); },
           .updated = [this, ref, enqueue](const json&,
                                           const json& o) { enqueue(observe(ref, o)); },
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

std::vector<std::string> GarbageCollector::observe(const ResourceRef& resource,
                                                   const json& object) {
  std::vector<InvalidNamespace> invalid;
  std::vector<std::string> keys = graph_.observe(resource, object, &invalid);
  for (const InvalidNamespace& bad : invalid) {
    const Node& d = bad.dependent;
    const json involved = {
        {"apiVersion", d.api_version},
        {"kind", d.kind},
        {"metadata", {{"namespace", d.namespace_}, {"name", d.name}, {"uid", d.uid}}}};
    events_.record(involved, "Warning", "OwnerRefInvalidNamespace",
                   "ownerRef [" + bad.owner.api_version + "/" + bad.owner.kind + ", namespace: " +
                       d.namespace_ + ", name: " + bad.owner.name + ", uid: " + bad.owner.uid +
                       "] does not exist in namespace \"" + d.namespace_ + "\"");
  }
  return keys;
}

std::optional<ResourceRef> GarbageCollector::resource_for(const OwnerReference& owner) {
  if (auto resource = discovery_.resource_for(owner.api_version, owner.kind)) {
    return resource;
  }
  // A kind not known: discovery again, once until the next periodic one (upstream's deferred
  // REST mapper resets itself on a miss the same way).
  if (!rediscovered_) {
    rediscovered_ = true;
    if (auto failed = refresh()) {
      apiserver::log::error(name() + ": " + *failed);
    }
    return discovery_.resource_for(owner.api_version, owner.kind);
  }
  return std::nullopt;
}

common::Result<std::optional<OwnerState>> GarbageCollector::owner_state(
    const json& dependent, const OwnerReference& owner) {
  using Out = common::Result<std::optional<OwnerState>>;
  const std::string dependent_ns = namespace_of(dependent);
  if (graph_.absent(owner, "") || graph_.absent(owner, dependent_ns)) {
    return std::optional<OwnerState>(OwnerState::Dangling);
  }
  auto resource = resource_for(owner);
  if (!resource) {
    return Out::failure("unable to get REST mapping for " + owner.api_version + "/" + owner.kind +
                        ".");
  }
  if (resource->namespaced && dependent_ns.empty()) {
    // A reference has no namespace: a cluster-scoped object cannot name a namespaced owner.
    return std::optional<OwnerState>();
  }
  // Always asked live, as upstream does: the graph may be behind, and only the reference's own
  // coordinates count (an object of that uid seen elsewhere or under another name is not it).
  const std::string ns = resource->namespaced ? dependent_ns : "";
  auto live = client_.get(resource->object(ns, owner.name));
  if (!live) {
    if (live.error().not_found()) {
      graph_.mark_absent(owner, ns);
      return std::optional<OwnerState>(OwnerState::Dangling);
    }
    return Out::failure("getting owner " + owner.kind + " " + owner.name + ": " +
                        live.error().message);
  }
  if (uid_of(*live) != owner.uid) {
    graph_.mark_absent(owner, ns);
    return std::optional<OwnerState>(OwnerState::Dangling);
  }
  if (being_deleted(*live) && has_finalizer(*live, kForegroundFinalizer)) {
    return std::optional<OwnerState>(OwnerState::WaitingForDependentsDeletion);
  }
  return std::optional<OwnerState>(OwnerState::Solid);
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
    if (!*state) {
      return std::nullopt;  // an invalid reference: left alone, and no use trying again
    }
    states[owner.uid] = **state;
  }
  const std::vector<std::string> dependents = graph_.dependents(uid);
  const Decision d = decide(owners, states, !dependents.empty(), *live);
  switch (d.action) {
    case Decision::Action::None:
      return std::nullopt;
    case Decision::Action::RemoveReferences:
      return edit(path, uid, [&](json& o) { return remove_owner_references(o, d.remove_uids); });
    case Decision::Action::Delete: {
      if (d.owner_waits &&
          std::any_of(dependents.begin(), dependents.end(), [this](const std::string& dep) {
            auto n = graph_.node(dep);
            return n && n->deleting_dependents;
          })) {
        // A dependent waits for its own dependents too: blocking could make a cycle.
        if (auto failed = edit(path, uid, unblock_owner_references)) {
          return failed;
        }
      }
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
