// Finishes namespace deletion, as kube-controller-manager's namespace controller does: once a
// namespace is Terminating, every object in it is deleted (objects with finalizers are marked and
// waited for), then the namespace's "kubernetes" finalizer is removed and the namespace goes.
// Runs on its own thread; work arrives through a bounded set of namespace names.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "apiserver/registry.h"
#include "controllers/retry_backoff.h"
#include "storage/storage.h"

namespace apiserver::controllers {

class NamespaceController {
 public:
  NamespaceController(std::shared_ptr<registry::Registry> registry, storage::Storage& storage);
  ~NamespaceController();

  // A namespace became Terminating (or may have, after a restart).
  void enqueue(const std::string& name);
  // Enqueues every namespace that is Terminating now (at start-up).
  void resync();
  // True when nothing is queued or in progress (for tests).
  bool idle() const;

 private:
  void run();
  // Returns true when the namespace is gone (or was never terminating).
  bool finalize(const std::string& name);

  std::shared_ptr<registry::Registry> registry_;
  storage::Storage& storage_;
  mutable std::mutex mu_;  // protects queue_, retry_, busy_, stop_
  std::condition_variable cv_;
  std::set<std::string> queue_;
  RetryBackoff retry_;  // namespaces whose finalize threw, until they are due again
  bool busy_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace apiserver::controllers
