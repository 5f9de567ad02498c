#include "storage/storage.h"

#include "protobuf/decode.h"
#include "storage/stored_values.h"
#include "trace/request_trace.h"

namespace apiserver::storage {
namespace {

Error translate(const store::Status& status) {
  switch (status.code()) {
    case store::Code::Ok:
      return {};
    case store::Code::Compacted:
      return {ErrorKind::Expired, status.message()};
    case store::Code::RequestTooLarge:
      return {ErrorKind::TooLarge, status.message()};
    case store::Code::Closed:
      return {ErrorKind::Unavailable, status.message()};
    default:
      return {ErrorKind::Internal, status.message()};
  }
}

}  // namespace

Storage::Storage(store::Store& store) : store_(store), cache_(store) {}

Storage::~Storage() = default;

Error Storage::get(const std::string& key, Object& out) {
  store::RangeRequest request;
  request.key = key;
  auto result = store_.range(request);
  if (!result.is_ok()) {
    return translate(result.status());
  }
  if (result->kvs.empty()) {
    if (trace::active()) {
      trace::note("storage", "range " + key + ": not found");
    }
    return {ErrorKind::NotFound, ""};
  }
  auto& kv = result->kvs.front();
  if (std::string error = to_json(kv.key, kv.value); !error.empty()) {
    return {ErrorKind::Internal, error};
  }
  out = {kv.key, std::move(kv.value), kv.mod_revision};
  if (trace::active()) {
    trace::note("storage", "range " + key + ": mod_revision " + std::to_string(kv.mod_revision));
  }
  return {};
}

Error Storage::list(const std::string& prefix, const std::string& start_key, int64_t limit,
                    int64_t revision, ListResult& out) {
  store::RangeRequest request;
  request.key = start_key.empty() ? prefix : start_key;
  request.range_end = store::prefix_range_end(prefix);
  request.limit = limit;
  request.revision = revision;
  auto result = store_.range(request);
  if (!result.is_ok()) {
    return translate(result.status());
  }
  out.revision = revision > 0 ? revision : result->header.revision;
  out.more = result->more;
  out.remaining = result->count - static_cast<int64_t>(result->kvs.size());
  out.items.clear();
  out.items.reserve(result->kvs.size());
  for (auto& kv : result->kvs) {
    if (std::string error = to_json(kv.key, kv.value); !error.empty()) {
      return {ErrorKind::Internal, error};
    }
    out.items.push_back({std::move(kv.key), std::move(kv.value), kv.mod_revision});
  }
  if (trace::active()) {
    trace::note("storage", "range " + request.key + " to the end of " + prefix + ": " +
                               std::to_string(out.items.size()) + " keys at revision " +
                               std::to_string(out.revision) + (out.more ? ", more left" : ""));
  }
  return {};
}

// A write announced to the observers of its key before it goes to the store, and told done
// (with its revision, or 0 when it changed nothing) once it has, whatever way it ends.
class Storage::Announced {
 public:
  Announced(const Storage& storage, const std::string& key) {
    for (const auto& [prefix, observer] : storage.observers_) {
      if (key.compare(0, prefix.size(), prefix) == 0) {
        tickets_.emplace_back(&observer, observer.begin());
      }
    }
  }
  ~Announced() { done(0); }
  Announced(const Announced&) = delete;
  Announced& operator=(const Announced&) = delete;

  void done(int64_t revision) {
    for (const auto& [observer, ticket] : tickets_) {
      observer->end(ticket, revision);
    }
    tickets_.clear();
  }

 private:
  std::vector<std::pair<const WriteObserver*, uint64_t>> tickets_;
};

Error Storage::create(const std::string& key, const std::string& value, int64_t& revision) {
  store::TxnRequest txn;
  store::Compare absent;
  absent.key = key;
  absent.target = store::Compare::Target::Create;
  absent.result = store::Compare::Result::Equal;
  absent.create_revision = 0;
  txn.compare.push_back(absent);
  store::PutRequest put;
  put.key = key;
  put.value = for_storage(key, value, media_type_);
  put.lease = lease_for(key);
  const std::string stored_as = std::to_string(put.value.size()) + " bytes" +
                                (protobuf::is_k8s_protobuf(put.value) ? " of protobuf" : "");
  txn.success.push_back(store::RequestOp::of(put));
  Announced announced(*this, key);
  auto result = store_.txn(txn);
  if (!result.is_ok()) {
    return translate(result.status());
  }
  if (!result->succeeded) {
    if (trace::active()) {
      trace::note("storage", "txn if " + key + " absent then put: failed, the key exists");
    }
    return {ErrorKind::AlreadyExists, ""};
  }
  revision = result->header.revision;
  announced.done(revision);
  if (trace::active()) {
    trace::note("storage", "txn if " + key + " absent then put (" + stored_as + "): revision " +
                               std::to_string(revision));
    note_watchers(key);
  }
  return {};
}

Error Storage::update(const std::string& key, const std::string& value, int64_t expected_revision,
                      int64_t& revision) {
  store::PutRequest put;
  put.key = key;
  put.value = for_storage(key, value, media_type_);
  put.lease = lease_for(key);
  return write_if_unchanged(key, expected_revision, store::RequestOp::of(put), revision);
}

void Storage::expire_prefix(std::string prefix, std::chrono::seconds ttl) {
  expiring_prefix_ = std::move(prefix);
  ttl_ = ttl;
}

store::LeaseId Storage::lease_for(const std::string& key) {
  if (ttl_.count() <= 0 || expiring_prefix_.empty() || !key.starts_with(expiring_prefix_)) {
    return 0;
  }
  const auto reuse = std::chrono::seconds(ttl_.count() / 20);
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(lease_mu_);
  if (lease_ != 0 && now < lease_granted_ + reuse) {
    return lease_;
  }
  store::LeaseGrantRequest grant;
  grant.ttl = (ttl_ + reuse).count();
  auto granted = store_.lease_grant(grant);
  if (!granted.is_ok()) {
    return 0;  // the object is kept without a lease rather than not written
  }
  lease_ = granted->id;
  lease_granted_ = now;
  if (trace::active()) {
    trace::note("storage", "lease " + std::to_string(lease_) + " granted for " +
                               std::to_string(grant.ttl) + " s (the objects under " +
                               expiring_prefix_ + " expire)");
  }
  return lease_;
}

Error Storage::remove(const std::string& key, int64_t expected_revision, int64_t& revision) {
  store::DeleteRangeRequest del;
  del.key = key;
  return write_if_unchanged(key, expected_revision, store::RequestOp::of(del), revision);
}

Error Storage::write_if_unchanged(const std::string& key, int64_t expected_revision,
                                  store::RequestOp write, int64_t& revision) {
  const bool put = write.kind == store::RequestOp::Kind::Put;
  store::TxnRequest txn;
  store::Compare cmp;
  cmp.key = key;
  if (expected_revision > 0) {
    cmp.target = store::Compare::Target::Mod;
    cmp.result = store::Compare::Result::Equal;
    cmp.mod_revision = expected_revision;
  } else {
    cmp.target = store::Compare::Target::Create;  // any revision, as long as it exists
    cmp.result = store::Compare::Result::Greater;
    cmp.create_revision = 0;
  }
  txn.compare.push_back(cmp);
  txn.success.push_back(std::move(write));
  // On failure, tell a changed object (Conflict) from a missing one (NotFound).
  store::RangeRequest current;
  current.key = key;
  current.keys_only = true;
  txn.failure.push_back(store::RequestOp::of(current));
  Announced announced(*this, key);
  auto result = store_.txn(txn);
  if (!result.is_ok()) {
    return translate(result.status());
  }
  std::string what;
  if (trace::active()) {
    what = "txn if " + key +
           (expected_revision > 0 ? " at mod_revision " + std::to_string(expected_revision)
                                  : std::string(" exists")) +
           " then " + (put ? "put" : "delete");
  }
  if (!result->succeeded) {
    bool exists = !result->responses.empty() && !result->responses[0].range.kvs.empty();
    if (trace::active()) {
      trace::note("storage", what + ": failed, " + (exists ? "the key changed" : "no such key"));
    }
    return {exists ? ErrorKind::Conflict : ErrorKind::NotFound, ""};
  }
  revision = result->header.revision;
  announced.done(revision);
  if (trace::active()) {
    trace::note("storage", what + ": revision " + std::to_string(revision));
    note_watchers(key);
  }
  return {};
}

void Storage::observe_writes(std::string prefix, WriteObserver observer) {
  observers_.emplace_back(std::move(prefix), std::move(observer));
}

void Storage::note_watchers(const std::string& key) const {
  const size_t n = cache_.watchers_of(key);
  trace::note("watch", "the event goes to " + std::to_string(n) +
                           (n == 1 ? " open watch" : " open watches") +
                           " of this key (each may still drop it by its selectors)");
}

std::shared_ptr<store::Watcher> Storage::watch(const std::string& resource_prefix,
                                               const std::string& prefix, bool exact,
                                               int64_t from_revision) {
  if (auto cached = cache_.watch(resource_prefix, prefix, exact, from_revision)) {
    return cached;
  }
  store::WatchRequest request;
  request.key = prefix;
  request.range_end = exact ? std::string() : store::prefix_range_end(prefix);
  request.start_revision = from_revision;
  request.prev_kv = true;
  return decoding(store_.watch(request));
}

}  // namespace apiserver::storage
