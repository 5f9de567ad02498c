// Finishes namespace deletion, as kube-controller-manager's namespace controller does: once a
// namespace is Terminating, every object in it is deleted (objects with finalizers are marked and
// waited for), then the namespace's "kubernetes" finalizer is removed and the namespace goes.
// Runs on its own thread; work arrives through a common::WorkQueue of namespace names.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "apiserver/registry.h"
#include "common/clock.h"
#include "common/work_queue.h"
#include "storage/storage.h"

namespace apiserver::controllers {

class NamespaceController {
 public:
  // `clock` times the retries; it must outlive the controller.
  NamespaceController(std::shared_ptr<registry::Registry> registry, storage::Storage& storage,
                      const common::Clock& clock = common::Clock::real());
  ~NamespaceController();

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
  // Returns true when the namespace is gone (or was never terminating).
  bool finalize(const std::string& name);

  std::shared_ptr<registry::Registry> registry_;
  storage::Storage& storage_;
  // Namespaces to finalize; a namespace whose finalize threw comes back after a backoff, one
  // whose objects are held by finalizers after kRetryInterval. Thread-safe on its own.
  common::WorkQueue queue_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace apiserver::controllers
