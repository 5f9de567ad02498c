// One group commit in the making: the LMDB write transaction and everything the batch changed so
// far. Later writes of the same batch see earlier ones (through the overlay index and the write
// transaction); nothing is visible to readers until the commit loop commits and publishes it.
//
// Each request applied through a Batch gets its own revision when it writes anything (sub
// revisions number its writes); requests that write nothing keep the revision unchanged.
// Requests are checked before they write, so a request that fails leaves the batch untouched.
#pragma once

#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "backend/lmdb_env.h"
#include "key_index.h"
#include "kv_range.h"
#include "lessor.h"
#include "store/store.h"
#include "watchable.h"

namespace store {

class Batch {
 public:
  Batch(backend::Txn& txn, const KeyIndex& base, const Lessor& lessor, Revision current,
        const Options& options, const Clock& clock, std::mt19937_64& rng);

  Status put(const PutRequest& request, PutResponse& response);
  Status delete_range(const DeleteRangeRequest& request, DeleteRangeResponse& response);
  Status txn(const TxnRequest& request, TxnResponse& response);
  Status lease_grant(const LeaseGrantRequest& request, LeaseGrantResponse& response);
  Status lease_revoke(LeaseId id, LeaseRevokeResponse& response);
  Status lease_renew(LeaseId id, LeaseKeepAliveResponse& response);

  Revision revision() const { return revision_; }
  const KeyIndex& overlay() const { return overlay_; }
  const std::vector<RevisionEvents>& events() const { return events_; }

  // Lease changes to apply to the Lessor once the batch is durable, in order.
  struct LeaseChange {
    enum class Kind { Grant, Revoke, Renew, Attach } kind;
    LeaseId id = 0;
    int64_t ttl = 0;
    WallTime deadline;
    std::string key;       // Attach
    LeaseId from = 0;      // Attach: the key's previous lease
  };
  const std::vector<LeaseChange>& lease_changes() const { return lease_changes_; }

 private:
  // The current (newest) state of keys, merging the committed index and this batch.
  const IndexEntry* newest(const std::string& key) const;
  std::vector<KeyEntry> live_range(const std::string& key, const std::string& range_end) const;
  std::optional<Record> fetch(Rev rev);
  bool lease_exists(LeaseId id) const;

  // Checks and branch choice that happen before a txn writes.
  bool compare_holds(const Compare& compare);
  void choose_path(const TxnRequest& request, std::vector<bool>& path);
  Status check_puts(const std::vector<RequestOp>& ops, const std::vector<bool>& path,
                    size_t& cursor);
  Status apply_ops(const std::vector<RequestOp>& ops, const std::vector<bool>& path,
                   size_t& cursor, std::vector<ResponseOp>& responses);
  Status check_put(const PutRequest& request) const;

  // Writes inside the current request.
  void begin_request();
  void end_request();
  Status write_put(const PutRequest& request, PutResponse& response);
  Status write_delete(const DeleteRangeRequest& request, DeleteRangeResponse& response);
  Status range(const RangeRequest& request, RangeResponse& response);

  backend::Txn& txn_;
  const KeyIndex& base_;
  const Lessor& lessor_;
  const Options& options_;
  const Clock& clock_;
  std::mt19937_64& rng_;

  KeyIndex overlay_;
  Revision revision_;      // last revision assigned
  Revision request_main_ = 0;  // revision of the request being applied
  int64_t request_sub_ = 0;    // writes so far in it
  std::vector<Event> request_events_;
  std::vector<RevisionEvents> events_;

  std::map<LeaseId, std::tuple<int64_t, WallTime>> granted_;  // leases granted in this batch
  std::set<LeaseId> revoked_;
  std::map<LeaseId, std::set<std::string>> attached_;  // keys attached in this batch
  std::vector<LeaseChange> lease_changes_;
};

// Validation that does not depend on the store's state.
Status validate_txn(const TxnRequest& request, const Options& options);
size_t request_bytes(const TxnRequest& request);

}  // namespace store
