// What kube-apiserver's apiextensions controllers do for CustomResourceDefinitions, in one
// controller:
// - naming: a CRD's names are accepted unless another CRD of its group uses one of them
//   (status.acceptedNames, condition NamesAccepted; a new CRD is Established=False, Installing);
// - establishing: a CRD whose accepted names are stored is served (condition Established) — its
//   rows go into the registry (one per served version), so routing, discovery and OpenAPI pick it
//   up;
// - finalizing: a CRD being deleted (the delete marks it and adds the finalizer
//   customresourcecleanup.apiextensions.k8s.io) gets condition Terminating, every custom resource
//   of it is deleted, then the finalizer is removed and the CRD goes; its rows go with it.
//
// Like the namespace defaults controller it is an API client: it writes CRD status and custom
// resource deletions through the REST handlers (as kube-apiserver's loopback user), follows CRDs
// through the storage watch, and works on its own thread, taking work from a common::WorkQueue
// whose keys are CRD names and kFollowKey ("the watch has news").
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "common/clock.h"
#include "common/work_queue.h"
#include "registry/custom_conversion.h"
#include "storage/storage.h"

namespace apiserver::controllers {

class CrdController {
 public:
  using Client = std::function<http::Response(http::Request&)>;

  // `clock` times the retries; it must outlive the controller.
  CrdController(std::shared_ptr<registry::Registry> registry, storage::Storage& storage,
                Client client, const common::Clock& clock = common::Clock::real());
  ~CrdController();

  // Publishes the rows of every stored CRD and settles their status now, on the caller's thread
  // (so they are served before the server turns ready), then follows changes.
  void start();
  // Looks at every stored CRD again and drops the rows of CRDs that are gone (after a snapshot
  // restore).
  void resync();
  // The work queue, for tests to wait until it is idle.
  const common::WorkQueue& queue() const { return queue_; }
  // For tests: asks the watch for a progress notification, after which followed_revision()
  // reaches the store's revision of now. The storage watch delivers events on its own thread,
  // so an idle queue alone does not mean that every write was seen.
  void request_progress();
  // Every CRD change up to this revision has been turned into queued work.
  int64_t followed_revision() const { return followed_.load(); }

 private:
  struct Row {
    std::string group;
    std::string version;
    std::string resource;
    friend auto operator<=>(const Row&, const Row&) = default;
  };

  void run();
  // Drains the watch into the queue, watching and listing again first when `relist_`.
  void follow();
  void watch_and_list(bool now);
  void drain_watch();
  void enqueue(const std::string& name);
  // reconcile() behind the controllers' barrier: a CRD whose reconcile threw is tried again
  // after a backoff.
  void work_on(const std::string& name);
  void reconcile(const std::string& name);
  // How the CRD's objects change versions (spec.conversion); null for strategy None.
  std::shared_ptr<const registry::CustomConverter> converter_of(const nlohmann::json& crd);
  // The finalizer's work; false while custom resources remain (looked at again after a while).
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
  std::atomic<bool> relist_{false};   // watch and list again (set by resync() and on failure)
  std::atomic<int64_t> followed_{0};  // see followed_revision(); written by the thread only
  // CRD names to reconcile, and kFollowKey when the watch has news. Thread-safe on its own.
  common::WorkQueue queue_;
  std::thread thread_;
};

}  // namespace apiserver::controllers
