// The garbage collector, as kube-controller-manager's garbage-collector-controller: it watches
// every resource whose objects can have owners (found through discovery, refreshed every 30 s so
// that custom resources join), keeps the graph of owners and dependents (gc/graph.h), and
//   - deletes (propagationPolicy Background) a dependent whose owners are all gone, or drops the
//     references to the gone ones when an owner stays. An owner missing from the graph is looked
//     up with a live GET before anything is deleted, since the informers may be behind;
//   - for an owner being deleted with the "orphan" finalizer, removes its ownerReference from
//     every dependent, then the finalizer;
//   - for an owner being deleted with the "foregroundDeletion" finalizer, deletes its dependents
//     and removes the finalizer once no dependent with blockOwnerDeletion remains.
// An owner is looked up live by the reference's apiVersion, kind and name, in the dependent's
// namespace when the kind is namespaced: not found, or found with another uid, it is gone
// (remembered as such, as an owner deleted while it had dependents is). A kind discovery does
// not know is retried. A cluster-scoped dependent naming a namespaced kind is left alone (a
// reference has no namespace to look in). A reference to an owner seen in another namespace
// than its dependent's gets an OwnerRefInvalidNamespace event on the dependent.
//
// Threads: informer threads update the graph and queue keys; the one worker does every request.
// Discovery and the set of informers change on the worker alone (and in start(), before it runs).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"
#include "gc/discovery.h"
#include "gc/graph.h"

namespace cluster::gc {

class GarbageCollector final : public Controller {
 public:
  GarbageCollector(const Client& client, const common::Clock& clock);
  ~GarbageCollector() override;

  // Discovers the resources and starts (and syncs) their informers; call before run().
  void start() override;
  // Stops every informer (a list that keeps failing stops retrying); call before stop().
  void stop_informers() override;

  const Graph& graph() const { return graph_; }

  // Tests drive one GarbageCollector by hand: a discovery (and no informers, nor discovery again
  // on a miss), the informers' events, and one sync of a key.
  void set_discovery_for_test(Discovery discovery) {
    discovery_ = std::move(discovery);
    rediscovered_ = true;
  }
  std::vector<std::string> observe_for_test(const ResourceRef& resource, const json& object) {
    return observe(resource, object);
  }
  std::vector<std::string> forget_for_test(const json& object) { return graph_.forget(object); }
  std::optional<std::string> sync_for_test(const std::string& key) { return sync(key); }

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  // Discovery again: informers for new resources, none for those gone.
  std::optional<std::string> refresh();
  std::optional<std::string> attempt_to_delete(const std::string& uid);
  std::optional<std::string> delete_dependents(const Node& owner);
  std::optional<std::string> orphan_dependents(const std::string& uid);
  // graph_.observe, with the OwnerRefInvalidNamespace events it calls for.
  std::vector<std::string> observe(const ResourceRef& resource, const json& object);
  // Where objects of the owner's apiVersion and kind are served (discovery again on a miss,
  // once until the next periodic discovery).
  std::optional<ResourceRef> resource_for(const OwnerReference& owner);
  // What `owner` is for `dependent` (live object's metadata); nullopt for a reference that can
  // name nothing (a namespaced owner of a cluster-scoped dependent); an error to retry.
  common::Result<std::optional<OwnerState>> owner_state(const json& dependent,
                                                        const OwnerReference& owner);
  // GETs the object at `path`, lets `change` edit it and PUTs it back with its resourceVersion,
  // again on a conflict. Nothing to do when it is gone or has another uid than `uid`.
  std::optional<std::string> edit(const std::string& path, const std::string& uid,
                                  const std::function<bool(json&)>& change);

  const Client& client_;
  EventRecorder events_;
  Graph graph_;
  Discovery discovery_;        // the worker's (see Threads)
  bool rediscovered_ = false;  // the worker's: discovery ran again since the periodic one

  std::mutex informers_mu_;                                     // protects informers_ and stopping_
  std::map<std::string, std::unique_ptr<Informer>> informers_;  // by resource_key
  bool stopping_ = false;
};

}  // namespace cluster::gc
