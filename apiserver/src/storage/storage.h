// The storage interface the registry writes through: objects as JSON under their keys, with the
// store revision as resourceVersion. One backend today (the embedded store); a remote etcd
// backend implements the same interface later. Errors are translated here from store codes to
// storage errors, and the registry turns them into API Status objects.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "storage/stored_values.h"
#include "storage/watch_cache.h"
#include "store/store.h"

namespace apiserver::storage {

enum class ErrorKind {
  None,
  NotFound,       // no object under the key
  AlreadyExists,  // create: an object is already there
  Conflict,       // update/delete: the object changed since the expected revision
  Expired,        // the revision asked for was compacted
  TooLarge,       // the object is above the store's size limit
  Unavailable,    // the store is closing
  Internal,       // anything else
};

struct Error {
  ErrorKind kind = ErrorKind::None;
  std::string message;
  explicit operator bool() const { return kind != ErrorKind::None; }
};

struct Object {
  std::string key;
  std::string value;         // the object's JSON, as stored
  int64_t mod_revision = 0;  // its resourceVersion
};

struct ListResult {
  std::vector<Object> items;
  int64_t revision = 0;   // the store revision the list was read at
  bool more = false;      // more keys after the last item
  int64_t remaining = 0;  // keys left after the last item (with a limit)
};

struct WatchEvent {
  enum class Type { Put, Delete } type = Type::Put;
  Object object;                   // Put: the new object; Delete: the last state (prev)
  std::optional<Object> previous;  // Put of an existing key: its previous state
};

class Storage {
 public:
  explicit Storage(store::Store& store);
  ~Storage();

  Error get(const std::string& key, Object& out);
  // Keys under `prefix` from `start_key` on (empty = from the beginning of the prefix), at most
  // `limit` (0 = all), at `revision` (0 = current).
  Error list(const std::string& prefix, const std::string& start_key, int64_t limit,
             int64_t revision, ListResult& out);
  // kube-apiserver's --storage-media-type for what create and update write (JSON by default).
  // Set before serving.
  void set_media_type(MediaType type) { media_type_ = type; }

  // Fails with AlreadyExists if the key holds an object.
  Error create(const std::string& key, const std::string& value, int64_t& revision);
  // Replaces the object if its revision is still `expected_revision`; Conflict otherwise,
  // NotFound if it is gone.
  Error update(const std::string& key, const std::string& value, int64_t expected_revision,
               int64_t& revision);
  // Deletes the object if its revision is still `expected_revision` (0 = any).
  Error remove(const std::string& key, int64_t expected_revision, int64_t& revision);

  int64_t current_revision() const { return store_.current_revision(); }
  // Changes to the keys under `prefix` (exactly the key `prefix` when `exact`) from revision
  // `from_revision` on (0 = from now). Served from the watch cache of `resource_prefix` (the
  // resource's etcd prefix with a trailing '/') when it holds that revision, else from the store's
  // history; a compacted revision ends the watch with compact_revision set.
  std::shared_ptr<store::Watcher> watch(const std::string& resource_prefix,
                                        const std::string& prefix, bool exact,
                                        int64_t from_revision);
  // Ends every cached watch (shutdown).
  void close_watches() { cache_.close_all(); }
  // After Store::replace_all: cached watches that started below `floor` end with 410 Expired and
  // the caches follow the store from `floor` on (see WatchCacheSet::reset_all).
  void reset_watches(int64_t floor) { cache_.reset_all(floor); }

  // Keys under `prefix` expire `ttl` after their last create or update, through a store lease
  // (kube-apiserver's --event-ttl for /registry/events/). As upstream's lease manager, one lease
  // serves the writes of a short window (5% of the TTL), granted for the TTL plus that window,
  // so a burst of events costs one lease. Call before serving.
  void expire_prefix(std::string prefix, std::chrono::seconds ttl);

  // What a reader of the storage watch is told of the writes under a prefix, so that it can
  // tell when it has caught up with the writes made so far (the authorizers read their objects
  // from a watch, and a request after a write must see it, even one that a watcher of that
  // write makes before the writing thread returns): `begin` before the write goes to the store
  // (it returns a ticket), `end` once it is done, with the ticket and the write's revision (0
  // when it changed nothing). Both run on the writing thread; keep them short, never write.
  struct WriteObserver {
    std::function<uint64_t()> begin;
    std::function<void(uint64_t ticket, int64_t revision)> end;
  };
  // Call before serving: the list is not guarded.
  void observe_writes(std::string prefix, WriteObserver observer);

 private:
  class Announced;
  // The lease a write of `key` attaches (0: none).
  store::LeaseId lease_for(const std::string& key);
  // Applies `write` in one txn if the key's mod revision is still `expected_revision` (0: if the
  // key exists at all).
  // Notes in the request's trace how many open watches the write's event goes to.
  void note_watchers(const std::string& key) const;
  Error write_if_unchanged(const std::string& key, int64_t expected_revision,
                           store::RequestOp write, int64_t& revision);

  store::Store& store_;
  MediaType media_type_ = MediaType::Json;
  WatchCacheSet cache_;
  std::string expiring_prefix_;
  std::chrono::seconds ttl_{0};
  std::mutex lease_mu_;  // protects the lease below
  store::LeaseId lease_ = 0;
  std::chrono::steady_clock::time_point lease_granted_;
  // Set before serving, read-only afterwards.
  std::vector<std::pair<std::string, WriteObserver>> observers_;
};

}  // namespace apiserver::storage
