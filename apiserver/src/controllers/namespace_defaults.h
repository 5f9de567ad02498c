// What kube-controller-manager puts in every namespace: the `default` ServiceAccount (its
// serviceaccounts controller) and the `kube-root-ca.crt` ConfigMap holding the cluster CA (its
// root-ca-cert-publisher). Both are recreated when deleted, and the ConfigMap is put back when its
// CA is changed, while the namespace is active.
//
// The controller is an API client: it writes through the REST handlers (as a controller user, with
// field manager kube-controller-manager), so the objects get the metadata any client's would. It
// follows namespaces, service accounts and config maps through the storage's watch cache and
// reconciles one namespace at a time on its own thread, taking work from a common::WorkQueue
// whose keys are namespace names and kFollowKey ("the watches have news").
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/http.h"
#include "common/clock.h"
#include "common/work_queue.h"
#include "storage/storage.h"

namespace apiserver::controllers {

class NamespaceDefaultsController {
 public:
  using Client = std::function<http::Response(http::Request&)>;

  // `root_ca_pem` empty: no kube-root-ca.crt ConfigMaps (a server without a CA, or the publisher
  // turned off); `default_service_account` false: no `default` ServiceAccounts. `clock` times
  // the retries; it must outlive the controller.
  NamespaceDefaultsController(storage::Storage& storage, Client client, std::string root_ca_pem,
                              bool default_service_account = true,
                              const common::Clock& clock = common::Clock::real());
  ~NamespaceDefaultsController();

  // Reconciles every namespace now, on the caller's thread, then follows changes.
  void start();
  // The work queue, for tests to wait until it is idle.
  const common::WorkQueue& queue() const { return queue_; }
  // For tests: asks the watches for a progress notification, after which followed_revision()
  // reaches the store's revision of now. The storage watches deliver events on their own
  // thread, so an idle queue alone does not mean that every write was seen.
  void request_progress();
  // Every change up to this revision has been turned into queued work.
  int64_t followed_revision() const { return followed_.load(); }

 private:
  void run();
  // Drains the watches into the queue, watching and listing again first when `relist_`.
  void follow();
  // reconcile() behind the controllers' barrier: a namespace whose reconcile threw is tried
  // again after a backoff.
  void work_on(const std::string& ns);
  void reconcile(const std::string& ns);
  void enqueue(const std::string& ns);
  void drain_watches();
  void watch_and_list(bool now);

  storage::Storage& storage_;
  Client client_;
  const std::string root_ca_pem_;
  const bool default_service_account_;
  // Used by start() and then by the controller thread only.
  std::vector<std::shared_ptr<store::Watcher>> watchers_;
  std::vector<int64_t> followed_each_;  // per watcher: the revision its responses reached
  bool relist_ = false;  // following the watches failed: watch and list again (thread only)
  // Namespaces to reconcile, and kFollowKey when a watch has news. Thread-safe on its own.
  common::WorkQueue queue_;
  std::atomic<int64_t> followed_{0};  // the least of followed_each_; see followed_revision()
  std::thread thread_;
};

}  // namespace apiserver::controllers
