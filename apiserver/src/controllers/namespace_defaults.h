// What kube-controller-manager puts in every namespace: the `default` ServiceAccount (its
// serviceaccounts controller) and the `kube-root-ca.crt` ConfigMap holding the cluster CA (its
// root-ca-cert-publisher). Both are recreated when deleted, and the ConfigMap is put back when its
// CA is changed, while the namespace is active.
//
// The controller is an API client: it writes through the REST handlers (as a controller user, with
// field manager kube-controller-manager), so the objects get the metadata any client's would. It
// follows namespaces, service accounts and config maps through the storage's watch cache and
// reconciles one namespace at a time on its own thread.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/http.h"
#include "controllers/retry_backoff.h"
#include "storage/storage.h"

namespace apiserver::controllers {

class NamespaceDefaultsController {
 public:
  using Client = std::function<http::Response(http::Request&)>;

  // `root_ca_pem` empty: no kube-root-ca.crt ConfigMaps (a server without a CA).
  NamespaceDefaultsController(storage::Storage& storage, Client client, std::string root_ca_pem);
  ~NamespaceDefaultsController();

  // Reconciles every namespace now, on the caller's thread, then follows changes.
  void start();
  // True when nothing is queued or in progress (for tests).
  bool idle() const;

 private:
  void run();
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
  std::vector<std::shared_ptr<store::Watcher>> watchers_;  // used by the controller thread only
  mutable std::mutex mu_;  // protects queue_, retry_, busy_, stop_, woken_, relist_
  std::condition_variable cv_;
  std::set<std::string> queue_;
  RetryBackoff retry_;   // namespaces whose reconcile failed unexpectedly, until they are due
  bool relist_ = false;  // following the watches failed: watch and list again
  bool busy_ = false;
  bool stop_ = false;
  bool woken_ = false;
  std::thread thread_;
};

}  // namespace apiserver::controllers
