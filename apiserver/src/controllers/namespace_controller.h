// Finishes namespace deletion, as kube-controller-manager's namespace controller does. Once a
// namespace is Terminating and still lists the "kubernetes" finalizer, every namespaced resource
// that supports delete is emptied through the API, as the service account namespace-controller:
// a deletecollection (propagationPolicy Background) per resource, or a delete per object where
// the resource has no deletecollection. Pods therefore go through graceful deletion (their
// kubelets finish them), and objects with finalizers are only marked. What remains is counted
// into the namespace's conditions (namespace_conditions.h); the namespace is looked at again after
// half the pods' longest grace period plus a second, or 15 s when finalizers hold content, as
// upstream estimates. When nothing remains, "kubernetes" is removed through the namespace's
// finalize subresource, and the namespace goes with its last finalizer.
//
// Resources with no object in the namespace get no request (upstream sends one regardless).
// Runs on its own thread; work arrives through a common::WorkQueue of namespace names.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "common/clock.h"
#include "common/work_queue.h"
#include "storage/storage.h"

namespace apiserver::controllers {

class NamespaceController {
 public:
  using Client = std::function<http::Response(http::Request&)>;

  // `client` serves the controller's requests (the whole request pipeline); `clock` times the
  // looks again and the grace estimate; it must outlive the controller.
  NamespaceController(std::shared_ptr<registry::Registry> registry, storage::Storage& storage,
                      Client client, const common::Clock& clock = common::Clock::real());
  ~NamespaceController();

  // Ends the thread, after the sync in progress; later work is dropped. The server calls it
  // before it takes down what the controller's requests use.
  void stop();
  // A namespace became Terminating (or may have, after a restart).
  void enqueue(const std::string& name);
  // A delete left an object of `r` marked for deletion: a namespace's is this controller's work.
  void marked_for_deletion(const registry::Resource& r, const std::string& name);
  // Enqueues every namespace that is Terminating now (at start-up).
  void resync();
  // The work queue, for tests to wait until it is idle.
  const common::WorkQueue& queue() const { return queue_; }

 private:
  void run();
  // One pass over a terminating namespace: nullopt when it is finished with (gone, not
  // terminating, or no longer ours), else when to look again.
  std::optional<common::Clock::duration> sync(const std::string& name);

  std::shared_ptr<registry::Registry> registry_;
  storage::Storage& storage_;
  Client client_;
  const common::Clock& clock_;
  // Namespaces to finalize; a namespace whose sync threw or failed comes back after a backoff,
  // one whose content is still going after the estimate. Thread-safe on its own.
  common::WorkQueue queue_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace apiserver::controllers
