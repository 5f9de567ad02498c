// The Store implementation: owns the LMDB environment, the key index, the lessor, the watch hub
// and the two threads that change them (the commit loop and the lease timer).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <random>
#include <shared_mutex>
#include <thread>

#include "backend/lmdb_env.h"
#include "batch.h"
#include "key_index.h"
#include "lessor.h"
#include "store/store.h"
#include "watchable.h"

namespace store {

class MvccStore final : public Store, public HistorySource {
 public:
  static Result<std::unique_ptr<Store>> open(Options options);
  ~MvccStore() override;

  Result<RangeResponse> range(const RangeRequest& request) override;
  Result<PutResponse> put(const PutRequest& request) override;
  void put_async(PutRequest request, Callback<PutResponse> done) override;
  void delete_range_async(DeleteRangeRequest request, Callback<DeleteRangeResponse> done) override;
  void txn_async(TxnRequest request, Callback<TxnResponse> done) override;
  Result<DeleteRangeResponse> delete_range(const DeleteRangeRequest& request) override;
  Result<TxnResponse> txn(const TxnRequest& request) override;
  Result<CompactionResponse> compact(const CompactionRequest& request) override;

  std::shared_ptr<Watcher> watch(const WatchRequest& request) override;

  Result<LeaseGrantResponse> lease_grant(const LeaseGrantRequest& request) override;
  Result<LeaseRevokeResponse> lease_revoke(LeaseId id) override;
  Result<LeaseKeepAliveResponse> lease_keep_alive(LeaseId id) override;
  Result<LeaseTimeToLiveResponse> lease_time_to_live(LeaseId id, bool keys) override;
  Result<LeaseLeasesResponse> lease_leases() override;
  void expire_leases_for_test() override;

  Result<StatusResponse> status() override;
  Status snapshot(const std::filesystem::path& file) override;
  Status defragment() override;
  Status check_integrity() override;
  Result<ReplaceResponse> replace_all(std::vector<KeyValue> kvs) override;

  Revision current_revision() const override { return current_rev_.load(); }
  Revision compacted_revision() const override { return compacted_rev_.load(); }

  Status read_history(Revision from, Revision to, size_t max_revisions,
                      std::vector<RevisionEvents>& out, Revision& next) override;

 private:
  // A request waiting for the commit loop.
  struct PendingWrite {
    enum class Kind { Apply, Compact, Defragment, Replace };
    Kind kind = Kind::Apply;
    std::function<Status(Batch&)> apply;              // Kind::Apply: runs inside a batch
    Revision compact_revision = 0;                    // Kind::Compact
    const std::vector<KeyValue>* contents = nullptr;  // Kind::Replace: sorted, checked
    ReplaceResponse* replaced = nullptr;              // Kind::Replace: the answer
    // Called once with the outcome, on the commit loop's thread (or the submitter's when the
    // store is closing). Must not block: it runs between group commits.
    std::function<void(const Status&)> complete;
  };

  explicit MvccStore(Options options);
  Status load();
  // Hands every record of the revision table to `visit`, in order, with the index entry it makes,
  // until `visit` returns false. A record that does not decode ends the scan with an Io Status
  // saying `corrupt`.
  static Status scan_records(
      backend::Txn& txn, const char* corrupt,
      const std::function<bool(const Record& record, const IndexEntry& entry)>& visit);
  Status submit(std::unique_ptr<PendingWrite> write);
  Status submit_apply(std::function<Status(Batch&)> apply);
  // Queues `write` (waiting while the queue is full) and returns; its `complete` reports.
  void enqueue(std::unique_ptr<PendingWrite> write);
  // Queues `apply(batch, response)` as one write of a batch; `done` gets the response or the
  // failure from the commit loop.
  template <typename Response, typename Apply>
  void enqueue_apply(Apply apply, Callback<Response> done);

  void commit_loop();
  void run_batch(std::vector<std::unique_ptr<PendingWrite>>& writes);
  // A compaction, defragmentation or replace (a write that runs alone).
  Status run_maintenance(PendingWrite& write);
  Status run_compaction(Revision revision);
  Status run_defragment();
  Status run_replace(const std::vector<KeyValue>& contents, ReplaceResponse& response);
  void lease_loop();
  void expire_leases();

  Options options_;
  std::shared_ptr<Clock> clock_;
  std::filesystem::path dir_;
  bool remove_dir_on_close_ = false;
  int lock_fd_ = -1;

  // Shared by every LMDB transaction in flight; exclusive while the environment is resized or
  // replaced (grow, defragment). Lock order: env_mu_ before index_mu_.
  std::shared_mutex env_mu_;
  std::unique_ptr<backend::Env> env_;

  // Protects index_ and the pairing of index_ with current_rev_. Only the commit loop writes
  // index_, so it may read it without the lock.
  mutable std::shared_mutex index_mu_;
  KeyIndex index_;
  std::atomic<Revision> current_rev_{1};
  std::atomic<Revision> compacted_rev_{0};

  Lessor lessor_;
  std::shared_ptr<WatchHub> hub_;
  std::mt19937_64 rng_;  // used by the commit loop only

  std::mutex queue_mu_;               // protects queue_, closing_
  std::condition_variable queue_cv_;  // the queue gained a write or the store is closing
  std::condition_variable space_cv_;  // the queue has room
  std::deque<std::unique_ptr<PendingWrite>> queue_;
  bool closing_ = false;
  std::thread commit_thread_;

  std::mutex lease_mu_;  // protects lease_stop_; serialises expiry scans
  std::condition_variable lease_cv_;
  bool lease_stop_ = false;
  std::thread lease_thread_;
};

}  // namespace store
