// The embedded MVCC key-value store: etcd v3 semantics on LMDB, in process.
//
// Contract (etcd's KV, Watch, Lease and Maintenance APIs are the reference):
// - One global revision; each successful write (put, delete that deleted something, txn with at
//   least one write, lease revoke/expiry that deleted keys) increments it exactly once.
// - Writes are queued to one commit loop that groups concurrent writes into one LMDB
//   transaction and one fsync; a write returns only after its batch is durable (unless
//   Options::durability relaxes that).
// - Reads run on LMDB read transactions in the caller's thread and never wait for a commit.
// - Every method is thread-safe. Expected failures come back as Status, never as exceptions.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "store/status.h"
#include "store/types.h"
#include "store/watch.h"

namespace store {

// Wall-clock source for lease deadlines; tests inject their own.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::chrono::system_clock::time_point now() const = 0;
  static std::shared_ptr<Clock> system();
};

enum class Durability {
  Sync,       // default: acknowledged writes are on disk (fsync per group commit)
  NoSync,     // no fsync: survives a process crash, not a power loss; for tests
  Ephemeral,  // a private temporary database removed on close; for tests and --ephemeral
};

struct Options {
  std::filesystem::path dir;  // holds data.mdb and lock files; ignored for Ephemeral
  Durability durability = Durability::Sync;
  std::shared_ptr<Clock> clock;  // nullptr = system clock
  // Limits, as etcd's defaults.
  size_t max_request_bytes = 1572864;  // 1.5 MiB: larger values/requests are refused
  size_t max_txn_ops = 128;
  size_t max_batch = 1024;           // most writes folded into one commit
  size_t max_queued_writes = 65536;  // writers block (bounded queue) beyond this
  size_t watcher_buffer = 1024;      // responses a watcher may hold before it is cancelled
  std::chrono::milliseconds progress_interval{600000};  // etcd's default: 10 minutes
  std::chrono::milliseconds lease_check_interval{500};
  size_t initial_map_size = size_t{1} << 30;  // grows by doubling on demand
  bool take_lock = true;                      // refuse to open a dir that another process holds
};

// What Store::replace_all did.
struct ReplaceResponse {
  ResponseHeader header;          // the store revision after the replace
  Revision compact_revision = 0;  // reads below it answer Compacted (it is header.revision)
  int64_t written = 0;            // keys put: missing, or holding another value or lease
  int64_t deleted = 0;            // live keys that were not in the new contents
  int64_t unchanged = 0;          // keys that already held their value and lease
};

// What a snapshot file (Store::snapshot) holds, as read_snapshot reads it.
struct SnapshotContents {
  Revision revision = 0;          // the store's revision when the snapshot was taken
  Revision compact_revision = 0;  // its compacted revision then
  std::vector<KeyValue> kvs;      // the live keys at `revision`, in key order
};

class Store {
 public:
  // Opens (creating if needed) the store. Fails with Code::Locked if another process holds it.
  static Result<std::unique_ptr<Store>> open(Options options);

  virtual ~Store() = default;

  // KV ----------------------------------------------------------------------------------------
  virtual Result<RangeResponse> range(const RangeRequest& request) = 0;
  virtual Result<PutResponse> put(const PutRequest& request) = 0;
  // The writes answered through `done` instead of a return, so that no thread waits for them to
  // be durable: the embedded store calls `done` from its commit loop (it must not block there).
  // A store without a commit loop runs the call and calls `done` before returning.
  template <typename Response>
  using Callback = std::function<void(Result<Response>)>;
  virtual void put_async(PutRequest request, Callback<PutResponse> done) { done(put(request)); }
  virtual void delete_range_async(DeleteRangeRequest request, Callback<DeleteRangeResponse> done) {
    done(delete_range(request));
  }
  virtual void txn_async(TxnRequest request, Callback<TxnResponse> done) { done(txn(request)); }
  virtual Result<DeleteRangeResponse> delete_range(const DeleteRangeRequest& request) = 0;
  virtual Result<TxnResponse> txn(const TxnRequest& request) = 0;
  virtual Result<CompactionResponse> compact(const CompactionRequest& request) = 0;

  // Watch -------------------------------------------------------------------------------------
  // The first response is always created=true. When start_revision is below the compacted
  // revision, that one response also has canceled=true and compact_revision set (the caller
  // relists and watches again from a newer revision).
  virtual std::shared_ptr<Watcher> watch(const WatchRequest& request) = 0;

  // Lease -------------------------------------------------------------------------------------
  virtual Result<LeaseGrantResponse> lease_grant(const LeaseGrantRequest& request) = 0;
  virtual Result<LeaseRevokeResponse> lease_revoke(LeaseId id) = 0;
  virtual Result<LeaseKeepAliveResponse> lease_keep_alive(LeaseId id) = 0;
  virtual Result<LeaseTimeToLiveResponse> lease_time_to_live(LeaseId id, bool keys) = 0;
  virtual Result<LeaseLeasesResponse> lease_leases() = 0;
  // Expires every lease whose deadline passed now (also runs on a timer); for tests.
  virtual void expire_leases_for_test() = 0;

  // Maintenance -------------------------------------------------------------------------------
  virtual Result<StatusResponse> status() = 0;
  // A consistent copy of the database to `file`, taken while writes go on.
  virtual Status snapshot(const std::filesystem::path& file) = 0;
  // Rewrites the database without free pages; blocks reads and writes while it runs.
  virtual Status defragment() = 0;
  // Verifies every record decodes and that the key index agrees with the database.
  virtual Status check_integrity() = 0;

  // Bulk replace --------------------------------------------------------------------------------
  // Makes the live keys exactly `kvs` (each key at most once; KeyValue's revision and version
  // fields are ignored): keys of `kvs` that are missing or hold another value or lease are put,
  // live keys not in `kvs` are deleted, keys that already match keep their revisions. Built for
  // fast resets (restoring a named snapshot into a running server), so:
  // - It is one write at one new revision R = current + 1 (no new revision when nothing
  //   differs), applied alone between two group commits and durable per Options::durability.
  //   Readers see the whole old state or the whole new one, never a mix.
  // - The history is compacted at R in the same transaction (one record per live key remains):
  //   reads below R answer Compacted, reads at R and later see the new contents.
  // - R publishes no events. Every open watcher is cancelled with compact_revision = R + 1, and
  //   a watch that starts at R or earlier is refused the same way (also after a reopen): R's
  //   deletions were compacted away, so replaying R would be incomplete. Clients relist at R
  //   and watch from R + 1.
  // - Leases are not part of the contents: a key keeps the lease given in `kvs` only if that
  //   lease is granted in this store, else it is written without one. No lease is granted,
  //   renewed or revoked.
  // - The txn limits do not apply (max_txn_ops, the request size); each key plus its value
  //   must fit max_request_bytes.
  // Errors, with nothing changed: EmptyKey, DuplicateKey (a key given twice),
  // RequestTooLarge; Io; Closed.
  virtual Result<ReplaceResponse> replace_all(std::vector<KeyValue> kvs) = 0;

  virtual Revision current_revision() const = 0;
  virtual Revision compacted_revision() const = 0;
};

// Reads a snapshot file made by Store::snapshot without opening it as a store: read-only, no
// lock, no threads, so it works on a snapshot of a store that is open. With `with_keys` false
// only the revisions are read (cheap). InvalidArgument when the file is missing or not a
// snapshot; Io when it cannot be read.
Result<SnapshotContents> read_snapshot(const std::filesystem::path& file, bool with_keys = true);

// Replaces the database in `dir` with a snapshot file; the store must not be open. The store
// then opens at the snapshot's revision, as after etcdutl's snapshot restore.
Status restore_snapshot(const std::filesystem::path& snapshot, const std::filesystem::path& dir);

}  // namespace store
