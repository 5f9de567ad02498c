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
  bool take_lock = true;  // refuse to open a dir that another process holds
};

class Store {
 public:
  // Opens (creating if needed) the store. Fails with Code::Locked if another process holds it.
  static Result<std::unique_ptr<Store>> open(Options options);

  virtual ~Store() = default;

  // KV ----------------------------------------------------------------------------------------
  virtual Result<RangeResponse> range(const RangeRequest& request) = 0;
  virtual Result<PutResponse> put(const PutRequest& request) = 0;
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

  virtual Revision current_revision() const = 0;
  virtual Revision compacted_revision() const = 0;
};

// Replaces the database in `dir` with a snapshot file; the store must not be open. The store
// then opens at the snapshot's revision, as after etcdutl's snapshot restore.
Status restore_snapshot(const std::filesystem::path& snapshot, const std::filesystem::path& dir);

}  // namespace store
