// An informer, as client-go's: it lists a resource, keeps the objects in a local cache, watches
// from the list's resourceVersion to keep the cache current, and lists again when the watch
// answers 410 Expired (the revision it wanted was compacted, or a snapshot was restored). Each
// change is handed to the registered handlers after the cache holds it.
//
// Threads: start() lists on the caller's thread (so the cache is synced when it returns), then
// one thread follows the watch and calls the handlers; they must be quick (queue a key). The
// cache's readers (get, list) may be on any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/api_client.h"
#include "common/clock.h"

namespace cluster {

using ObjectPtr = std::shared_ptr<const json>;

struct InformerHandlers {
  std::function<void(const json& object)> added;
  std::function<void(const json& old, const json& object)> updated;
  std::function<void(const json& object)> deleted;  // the last state the cache knew
};

class Informer {
 public:
  // `selectors`: labelSelector / fieldSelector query parameters, if any.
  Informer(const Client& client, ResourceRef resource, Query selectors = {},
           const common::Clock& clock = common::Clock::real());
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Before start().
  void add_handlers(InformerHandlers handlers);
  // Lists (retrying until it works or stop()), then follows the watch on a thread of its own.
  void start();
  void stop();

  const ResourceRef& resource() const { return resource_; }
  // The object named ns/name (name alone when cluster-scoped), or null.
  ObjectPtr get(const std::string& namespace_, const std::string& name) const;
  // Every object, or those of one namespace.
  std::vector<ObjectPtr> list(const std::string& namespace_ = {}) const;
  // How many lists (the first one and each relist) it made: tests see a relist happen.
  uint64_t lists() const { return lists_; }

  // "ns/name", or "name" for a cluster-scoped object: the key of the cache and of work queues.
  static std::string key_of(const json& object);

 private:
  bool relist();
  void follow();
  // One watch: until it ends, stop() or a 410 (then `expired`).
  void watch_once(bool& expired);
  void apply(const std::string& type, json object, bool& expired);
  void wait(std::chrono::milliseconds delay);

  const Client& client_;
  const ResourceRef resource_;
  const Query selectors_;
  const common::Clock& clock_;
  std::vector<InformerHandlers> handlers_;

  mutable std::shared_mutex cache_mu_;
  std::map<std::string, ObjectPtr> cache_;
  std::string resource_version_;  // the last one seen; the informer thread's alone after start

  std::mutex mu_;  // protects stream_, woken_
  std::condition_variable wake_;
  std::shared_ptr<apiserver::http::ChunkStream> stream_;
  bool woken_ = false;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> lists_{0};
  std::thread thread_;
};

// The resourceVersion in an object's metadata ("" when none).
std::string resource_version_of(const json& object);

}  // namespace cluster
