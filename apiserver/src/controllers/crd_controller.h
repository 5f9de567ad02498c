// What kube-apiserver's apiextensions controllers do for CustomResourceDefinitions, in one
// controller:
// - naming: a CRD's names are accepted unless another CRD of its group uses one of them
//   (status.acceptedNames, condition NamesAccepted);
// - establishing: a CRD whose names are accepted is served (condition Established) — its rows go
//   into the registry (one per served version), so routing, discovery and OpenAPI pick it up;
// - finalizing: a CRD being deleted (the delete marks it and adds the finalizer
//   customresourcecleanup.apiextensions.k8s.io) gets condition Terminating, every custom resource
//   of it is deleted, then the finalizer is removed and the CRD goes; its rows go with it.
//
// Like the namespace defaults controller it is an API client: it writes CRD status and custom
// resource deletions through the REST handlers (as kube-apiserver's loopback user), follows CRDs
// through the storage watch, and works on its own thread.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "controllers/retry_backoff.h"
#include "storage/storage.h"

namespace apiserver::controllers {

class CrdController {
 public:
  using Client = std::function<http::Response(http::Request&)>;

  CrdController(std::shared_ptr<registry::Registry> registry, storage::Storage& storage,
                Client client);
  ~CrdController();

  // Publishes the rows of every stored CRD and settles their status now, on the caller's thread
  // (so they are served before the server turns ready), then follows changes.
  void start();
  // Looks at every stored CRD again and drops the rows of CRDs that are gone (after a snapshot
  // restore).
  void resync();
  // True when nothing is queued or in progress (for tests).
  bool idle() const;

 private:
  struct Row {
    std::string group;
    std::string version;
    std::string resource;
    friend auto operator<=>(const Row&, const Row&) = default;
  };

  void run();
  void watch_and_list(bool now);
  void drain_watch();
  void enqueue(const std::string& name);
  // reconcile() behind the controllers' barrier: a CRD whose reconcile threw is tried again
  // after a backoff.
  void work_on(const std::string& name);
  void reconcile(const std::string& name);
  // The finalizer's work; false while custom resources remain (it is tried again later).
  bool finalize(const nlohmann::json& crd);
  void publish(const std::string& name, std::vector<registry::Resource> rows);
  // PUTs `status` into `crd` through /status: the CRD as stored, or nullopt when refused.
  std::optional<nlohmann::json> write_status(const nlohmann::json& crd,
                                             const nlohmann::json& status);
  http::Response call(const std::string& method, const std::string& path,
                      const nlohmann::json& body);

  std::shared_ptr<registry::Registry> registry_;
  storage::Storage& storage_;
  Client client_;
  std::shared_ptr<store::Watcher> watcher_;  // used by the controller thread (and start())
  // Rows published per CRD name; used by reconcile() only, which runs on one thread at a time.
  std::map<std::string, std::set<Row>> published_;
  // protects queue_, retry_, busy_, stop_, woken_, relist_, terminating_
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> queue_;
  RetryBackoff retry_;  // CRDs whose reconcile failed unexpectedly, until they are due again
  std::set<std::string> terminating_;  // CRDs whose finalizer still waits for instances
  bool busy_ = false;
  bool stop_ = false;
  bool woken_ = false;
  bool relist_ = false;
  std::thread thread_;
};

}  // namespace apiserver::controllers
