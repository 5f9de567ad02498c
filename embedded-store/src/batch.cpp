#include "batch.h"

#include <algorithm>

namespace store {
namespace {

constexpr Revision kNow = INT64_MAX;
constexpr int64_t kMinLeaseTTL = 2;             // etcd: 3/2 election timeout, rounded up
constexpr int64_t kMaxLeaseTTL = 9000000000;    // etcd's MaxLeaseTTL

int64_t to_unix_ms(WallTime t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

template <typename T>
bool compare_values(Compare::Result op, const T& actual, const T& expected) {
  switch (op) {
    case Compare::Result::Equal:
      return actual == expected;
    case Compare::Result::NotEqual:
      return actual != expected;
    case Compare::Result::Greater:
      return actual > expected;
    case Compare::Result::Less:
      return actual < expected;
  }
  return false;
}

// Put keys and delete ranges of one branch (nested txns' branches included), for etcd's
// duplicate-key rule.
struct Intervals {
  std::set<std::string> puts;
  std::vector<KeyBounds> deletes;
};

Status collect_intervals(const std::vector<RequestOp>& ops, Intervals& out) {
  for (const auto& op : ops) {
    switch (op.kind) {
      case RequestOp::Kind::Put:
        if (!out.puts.insert(op.put.key).second) {
          return Status(Code::DuplicateKey);
        }
        break;
      case RequestOp::Kind::DeleteRange:
        out.deletes.push_back(key_bounds(op.delete_range.key, op.delete_range.range_end));
        break;
      case RequestOp::Kind::Txn: {
        // Only one of the nested branches runs, so they may share keys with each other.
        Intervals success, failure;
        if (auto s = collect_intervals(op.txn->success, success); !s.is_ok()) {
          return s;
        }
        if (auto s = collect_intervals(op.txn->failure, failure); !s.is_ok()) {
          return s;
        }
        for (const auto* branch : {&success, &failure}) {
          for (const auto& key : branch->puts) {
            if (out.puts.count(key) != 0) {
              return Status(Code::DuplicateKey);
            }
          }
        }
        out.puts.insert(success.puts.begin(), success.puts.end());
        out.puts.insert(failure.puts.begin(), failure.puts.end());
        out.deletes.insert(out.deletes.end(), success.deletes.begin(), success.deletes.end());
        out.deletes.insert(out.deletes.end(), failure.deletes.begin(), failure.deletes.end());
        break;
      }
      case RequestOp::Kind::Range:
        break;
    }
  }
  for (const auto& key : out.puts) {
    for (const auto& del : out.deletes) {
      if (del.contains(key)) {
        return Status(Code::DuplicateKey);
      }
    }
  }
  return Status::ok();
}

Status validate_ops(const std::vector<RequestOp>& ops, const Options& options) {
  for (const auto& op : ops) {
    if (op.kind == RequestOp::Kind::Put && op.put.key.empty()) {
      return Status(Code::EmptyKey);
    }
    if (op.kind == RequestOp::Kind::DeleteRange && op.delete_range.key.empty()) {
      return Status(Code::EmptyKey);
    }
    if (op.kind == RequestOp::Kind::Range && op.range.key.empty()) {
      return Status(Code::EmptyKey);
    }
    if (op.kind == RequestOp::Kind::Txn) {
      if (!op.txn) {
        return Status(Code::InvalidArgument, "etcdserver: nested txn is empty");
      }
      if (auto s = validate_txn(*op.txn, options); !s.is_ok()) {
        return s;
      }
    }
  }
  return Status::ok();
}

}  // namespace

size_t request_bytes(const TxnRequest& request) {
  size_t n = 0;
  for (const auto& c : request.compare) {
    n += c.key.size() + c.range_end.size() + c.value.size() + 16;
  }
  for (const auto* ops : {&request.success, &request.failure}) {
    for (const auto& op : *ops) {
      switch (op.kind) {
        case RequestOp::Kind::Put:
          n += op.put.key.size() + op.put.value.size() + 16;
          break;
        case RequestOp::Kind::DeleteRange:
          n += op.delete_range.key.size() + op.delete_range.range_end.size() + 8;
          break;
        case RequestOp::Kind::Range:
          n += op.range.key.size() + op.range.range_end.size() + 16;
          break;
        case RequestOp::Kind::Txn:
          n += op.txn ? request_bytes(*op.txn) : 0;
          break;
      }
    }
  }
  return n;
}

Status validate_txn(const TxnRequest& request, const Options& options) {
  if (request.compare.size() > options.max_txn_ops || request.success.size() > options.max_txn_ops ||
      request.failure.size() > options.max_txn_ops) {
    return Status(Code::TooManyOps);
  }
  for (const auto& c : request.compare) {
    if (c.key.empty()) {
      return Status(Code::EmptyKey);
    }
  }
  if (auto s = validate_ops(request.success, options); !s.is_ok()) {
    return s;
  }
  if (auto s = validate_ops(request.failure, options); !s.is_ok()) {
    return s;
  }
  Intervals success, failure;
  if (auto s = collect_intervals(request.success, success); !s.is_ok()) {
    return s;
  }
  return collect_intervals(request.failure, failure);
}

Batch::Batch(backend::Txn& txn, const KeyIndex& base, const Lessor& lessor, Revision current,
             const Options& options, const Clock& clock, std::mt19937_64& rng)
    : txn_(txn),
      base_(base),
      lessor_(lessor),
      options_(options),
      clock_(clock),
      rng_(rng),
      revision_(current) {}

// State lookups ------------------------------------------------------------------------------

const IndexEntry* Batch::newest(const std::string& key) const {
  if (const IndexEntry* e = overlay_.newest(key)) {
    return e;
  }
  return base_.newest(key);
}

std::vector<KeyEntry> Batch::live_range(const std::string& key,
                                        const std::string& range_end) const {
  std::map<std::string, IndexEntry> changed;
  overlay_.newest_in(key, range_end,
                     [&](const std::string& k, const IndexEntry& e) { changed[k] = e; });
  std::vector<KeyEntry> out;
  base_.range(key, range_end, kNow, [&](const std::string& k, const IndexEntry& e) {
    if (changed.count(k) == 0) {
      out.push_back({k, e});
    }
    return true;
  });
  for (const auto& [k, e] : changed) {
    if (!e.tombstone) {
      out.push_back({k, e});
    }
  }
  if (!changed.empty()) {
    std::sort(out.begin(), out.end(),
              [](const KeyEntry& a, const KeyEntry& b) { return a.key < b.key; });
  }
  return out;
}

std::optional<Record> Batch::fetch(Rev rev) {
  auto bytes = txn_.get(backend::Db::Rev, encode_rev(rev));
  if (!bytes) {
    return std::nullopt;
  }
  return decode_record(*bytes, rev.main);
}

bool Batch::lease_exists(LeaseId id) const {
  if (revoked_.count(id) != 0) {
    return false;
  }
  return granted_.count(id) != 0 || lessor_.contains(id);
}

// Requests -----------------------------------------------------------------------------------

void Batch::begin_request() {
  request_main_ = revision_ + 1;
  request_sub_ = 0;
  request_events_.clear();
}

void Batch::end_request() {
  if (request_sub_ > 0) {
    revision_ = request_main_;
    events_.push_back({request_main_, std::move(request_events_)});
  }
  request_events_.clear();
}

Status Batch::check_put(const PutRequest& request) const {
  if (request.key.empty()) {
    return Status(Code::EmptyKey);
  }
  if (request.key.size() + request.value.size() > options_.max_request_bytes) {
    return Status(Code::RequestTooLarge);
  }
  if (request.ignore_value && !request.value.empty()) {
    return Status(Code::InvalidArgument, "etcdserver: value is provided");
  }
  if (request.ignore_lease && request.lease != 0) {
    return Status(Code::InvalidArgument, "etcdserver: lease is provided");
  }
  if (request.ignore_value || request.ignore_lease) {
    const IndexEntry* current = newest(request.key);
    if (current == nullptr || current->tombstone) {
      return Status(Code::KeyNotFound);
    }
  }
  if (!request.ignore_lease && request.lease != 0 && !lease_exists(request.lease)) {
    return Status(Code::LeaseNotFound);
  }
  return Status::ok();
}

Status Batch::put(const PutRequest& request, PutResponse& response) {
  if (auto s = check_put(request); !s.is_ok()) {
    return s;
  }
  begin_request();
  Status s = write_put(request, response);
  end_request();
  response.header.revision = revision_;
  return s;
}

Status Batch::write_put(const PutRequest& request, PutResponse& response) {
  const IndexEntry* current = newest(request.key);
  bool exists = current != nullptr && !current->tombstone;
  std::optional<Record> previous;
  if (exists) {
    previous = fetch(current->rev);
    STORE_CHECK(previous.has_value(), "the newest revision of a live key has no record");
  }
  KeyValue kv;
  kv.key = request.key;
  kv.value = request.ignore_value ? previous->kv.value : request.value;
  kv.lease = request.ignore_lease ? previous->kv.lease : request.lease;
  kv.create_revision = exists ? current->create_revision : request_main_;
  kv.version = exists ? current->version + 1 : 1;
  kv.mod_revision = request_main_;
  Rev rev{request_main_, request_sub_++};
  if (auto s = txn_.put(backend::Db::Rev, encode_rev(rev), encode_record(kv, false)); !s.is_ok()) {
    return s;
  }
  overlay_.append(kv.key, IndexEntry{rev, kv.create_revision, kv.version, kv.lease, false});

  LeaseId old_lease = exists ? previous->kv.lease : 0;
  if (old_lease != kv.lease) {
    lease_changes_.push_back({LeaseChange::Kind::Attach, kv.lease, 0, {}, kv.key, old_lease});
    if (old_lease != 0) {
      attached_[old_lease].erase(kv.key);
    }
    if (kv.lease != 0) {
      attached_[kv.lease].insert(kv.key);
    }
  }

  Event event;
  event.type = Event::Type::Put;
  event.kv = kv;
  if (previous) {
    event.prev_kv = previous->kv;
  }
  request_events_.push_back(std::move(event));
  if (request.prev_kv && previous) {
    response.prev_kv = previous->kv;
  }
  return Status::ok();
}

Status Batch::delete_range(const DeleteRangeRequest& request, DeleteRangeResponse& response) {
  if (request.key.empty()) {
    return Status(Code::EmptyKey);
  }
  begin_request();
  Status s = write_delete(request, response);
  end_request();
  response.header.revision = revision_;
  return s;
}

Status Batch::write_delete(const DeleteRangeRequest& request, DeleteRangeResponse& response) {
  for (const auto& [key, entry] : live_range(request.key, request.range_end)) {
    auto previous = fetch(entry.rev);
    STORE_CHECK(previous.has_value(), "a live key has no record");
    KeyValue tomb;
    tomb.key = key;
    Rev rev{request_main_, request_sub_++};
    if (auto s = txn_.put(backend::Db::Rev, encode_rev(rev), encode_record(tomb, true));
        !s.is_ok()) {
      return s;
    }
    overlay_.append(key, IndexEntry{rev, 0, 0, 0, true});
    if (previous->kv.lease != 0) {
      lease_changes_.push_back({LeaseChange::Kind::Attach, 0, 0, {}, key, previous->kv.lease});
      attached_[previous->kv.lease].erase(key);
    }
    Event event;
    event.type = Event::Type::Delete;
    event.kv.key = key;
    event.kv.mod_revision = request_main_;
    event.prev_kv = previous->kv;
    request_events_.push_back(std::move(event));
    ++response.deleted;
    if (request.prev_kv) {
      response.prev_kvs.push_back(previous->kv);
    }
  }
  return Status::ok();
}

Status Batch::range(const RangeRequest& request, RangeResponse& response) {
  auto result = build_range_response(request, live_range(request.key, request.range_end),
                                     [this](Rev rev) {
                                       return txn_.get(backend::Db::Rev, encode_rev(rev));
                                     });
  if (!result.is_ok()) {
    return result.status();
  }
  response = std::move(result).value();
  return Status::ok();
}

// Txn ----------------------------------------------------------------------------------------

bool Batch::compare_holds(const Compare& compare) {
  auto entries = live_range(compare.key, compare.range_end);
  if (entries.empty()) {
    if (compare.target == Compare::Target::Value) {
      return false;  // as etcd: a value compare on a missing key never holds
    }
    entries.push_back({compare.key, IndexEntry{}});  // version, revisions and lease are 0
  }
  for (const auto& [key, entry] : entries) {
    bool holds = false;
    switch (compare.target) {
      case Compare::Target::Version:
        holds = compare_values(compare.result, entry.version, compare.version);
        break;
      case Compare::Target::Create:
        holds = compare_values(compare.result, entry.create_revision, compare.create_revision);
        break;
      case Compare::Target::Mod:
        holds = compare_values(compare.result, entry.rev.main, compare.mod_revision);
        break;
      case Compare::Target::Lease:
        holds = compare_values(compare.result, entry.lease, compare.lease);
        break;
      case Compare::Target::Value: {
        auto record = fetch(entry.rev);
        holds = record && compare_values(compare.result, record->kv.value, compare.value);
        break;
      }
    }
    if (!holds) {
      return false;
    }
  }
  return true;
}

// As etcd does, every compare of the txn and of its nested txns is evaluated against the state
// before the txn writes anything; `path` records the branch taken at each txn, depth first.
void Batch::choose_path(const TxnRequest& request, std::vector<bool>& path) {
  bool ok = std::all_of(request.compare.begin(), request.compare.end(),
                        [this](const Compare& c) { return compare_holds(c); });
  path.push_back(ok);
  for (const auto& op : ok ? request.success : request.failure) {
    if (op.kind == RequestOp::Kind::Txn) {
      choose_path(*op.txn, path);
    }
  }
}

Status Batch::check_puts(const std::vector<RequestOp>& ops, const std::vector<bool>& path,
                         size_t& cursor) {
  for (const auto& op : ops) {
    if (op.kind == RequestOp::Kind::Put) {
      if (auto s = check_put(op.put); !s.is_ok()) {
        return s;
      }
    } else if (op.kind == RequestOp::Kind::Txn) {
      bool ok = path[cursor++];
      if (auto s = check_puts(ok ? op.txn->success : op.txn->failure, path, cursor); !s.is_ok()) {
        return s;
      }
    }
  }
  return Status::ok();
}

Status Batch::apply_ops(const std::vector<RequestOp>& ops, const std::vector<bool>& path,
                        size_t& cursor, std::vector<ResponseOp>& responses) {
  for (const auto& op : ops) {
    ResponseOp r;
    r.kind = op.kind;
    Status s;
    switch (op.kind) {
      case RequestOp::Kind::Range:
        s = range(op.range, r.range);
        break;
      case RequestOp::Kind::Put:
        s = write_put(op.put, r.put);
        break;
      case RequestOp::Kind::DeleteRange:
        s = write_delete(op.delete_range, r.delete_range);
        break;
      case RequestOp::Kind::Txn: {
        r.txn = std::make_shared<TxnResponse>();
        r.txn->succeeded = path[cursor++];
        s = apply_ops(r.txn->succeeded ? op.txn->success : op.txn->failure, path, cursor,
                      r.txn->responses);
        break;
      }
    }
    if (!s.is_ok()) {
      return s;
    }
    responses.push_back(std::move(r));
  }
  return Status::ok();
}

Status Batch::txn(const TxnRequest& request, TxnResponse& response) {
  std::vector<bool> path;
  choose_path(request, path);
  size_t cursor = 1;
  const auto& ops = path[0] ? request.success : request.failure;
  if (auto s = check_puts(ops, path, cursor); !s.is_ok()) {
    return s;
  }
  begin_request();
  cursor = 1;
  response.succeeded = path[0];
  Status s = apply_ops(ops, path, cursor, response.responses);
  end_request();
  // Every header in the response carries the txn's revision, as etcd's do.
  std::function<void(TxnResponse&)> stamp = [&](TxnResponse& t) {
    t.header.revision = revision_;
    for (auto& r : t.responses) {
      r.range.header.revision = revision_;
      r.put.header.revision = revision_;
      r.delete_range.header.revision = revision_;
      if (r.txn) {
        stamp(*r.txn);
      }
    }
  };
  stamp(response);
  return s;
}

// Leases -------------------------------------------------------------------------------------

Status Batch::lease_grant(const LeaseGrantRequest& request, LeaseGrantResponse& response) {
  if (request.ttl > kMaxLeaseTTL) {
    return Status(Code::LeaseTTLTooLarge);
  }
  if (request.id < 0) {
    return Status(Code::InvalidArgument, "etcdserver: lease ID must be positive");
  }
  LeaseId id = request.id;
  if (id != 0 && lease_exists(id)) {
    return Status(Code::LeaseExists);
  }
  while (id == 0 || lease_exists(id)) {
    id = static_cast<LeaseId>(rng_() >> 1);
  }
  int64_t ttl = std::max(request.ttl, kMinLeaseTTL);
  WallTime deadline = clock_.now() + std::chrono::seconds(ttl);
  LeaseRecord record{ttl, to_unix_ms(deadline)};
  if (auto s = txn_.put(backend::Db::Lease, encode_i64(id), encode_lease(record)); !s.is_ok()) {
    return s;
  }
  granted_[id] = {ttl, deadline};
  revoked_.erase(id);
  lease_changes_.push_back({LeaseChange::Kind::Grant, id, ttl, deadline, {}, 0});
  response.id = id;
  response.ttl = ttl;
  response.header.revision = revision_;
  return Status::ok();
}

Status Batch::lease_revoke(LeaseId id, LeaseRevokeResponse& response) {
  if (!lease_exists(id)) {
    return Status(Code::LeaseNotFound);
  }
  std::set<std::string> candidates = attached_[id];
  if (auto lease = lessor_.get(id)) {
    candidates.insert(lease->keys.begin(), lease->keys.end());
  }
  begin_request();
  for (const auto& key : candidates) {
    const IndexEntry* e = newest(key);
    if (e == nullptr || e->tombstone || e->lease != id) {
      continue;
    }
    DeleteRangeResponse ignored;
    if (auto s = write_delete(DeleteRangeRequest{key, "", false}, ignored); !s.is_ok()) {
      end_request();
      return s;
    }
  }
  end_request();
  if (auto s = txn_.del(backend::Db::Lease, encode_i64(id)); !s.is_ok()) {
    return s;
  }
  granted_.erase(id);
  revoked_.insert(id);
  attached_.erase(id);
  lease_changes_.push_back({LeaseChange::Kind::Revoke, id, 0, {}, {}, 0});
  response.header.revision = revision_;
  return Status::ok();
}

Status Batch::lease_renew(LeaseId id, LeaseKeepAliveResponse& response) {
  if (!lease_exists(id)) {
    return Status(Code::LeaseNotFound);
  }
  int64_t ttl = 0;
  if (auto it = granted_.find(id); it != granted_.end()) {
    ttl = std::get<0>(it->second);
  } else {
    auto lease = lessor_.get(id);
    if (!lease || lease->deadline <= clock_.now()) {
      return Status(Code::LeaseNotFound);  // expired: its revocation is under way
    }
    ttl = lease->ttl;
  }
  WallTime deadline = clock_.now() + std::chrono::seconds(ttl);
  LeaseRecord record{ttl, to_unix_ms(deadline)};
  if (auto s = txn_.put(backend::Db::Lease, encode_i64(id), encode_lease(record)); !s.is_ok()) {
    return s;
  }
  lease_changes_.push_back({LeaseChange::Kind::Renew, id, ttl, deadline, {}, 0});
  response.id = id;
  response.ttl = ttl;
  response.header.revision = revision_;
  return Status::ok();
}

}  // namespace store
