#include "mvcc_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstring>

#include "common/durable_file.h"
#include "guard.h"
#include "replace.h"

namespace store {
namespace {

WallTime from_unix_ms(int64_t ms) { return WallTime(std::chrono::milliseconds(ms)); }

class SystemClock final : public Clock {
 public:
  std::chrono::system_clock::time_point now() const override {
    return std::chrono::system_clock::now();
  }
};

// The directory's entries (a rename, a removal) survive a power loss once this returns ok.
Status sync_dir(const std::filesystem::path& dir) {
  const std::string error = common::fsync_dir(dir);
  return error.empty() ? Status::ok() : Status(Code::Io, error);
}

Status errno_status(const std::string& what) {
  return Status(Code::Io, what + ": " + std::strerror(errno));
}

// Takes an exclusive advisory lock on dir/LOCK; returns the descriptor holding it.
Result<int> lock_dir(const std::filesystem::path& dir) {
  auto path = dir / "LOCK";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return errno_status("open " + path.string());
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status(Code::Locked, "the store in " + dir.string() +
                                      " is in use by another process (a running server?)");
    }
    errno = err;
    return errno_status("lock " + path.string());
  }
  return fd;
}

// The whole file or none at `path`, and on disk (fsynced with its directory) when this returns.
Status write_file_durably(const std::filesystem::path& path,
                          const std::function<Status(int fd)>& write) {
  Status written = Status::ok();
  auto result = common::write_file_durably(path, 0600, [&](int fd) {
    written = write(fd);
    return written.is_ok() ? std::string() : written.message();
  });
  if (!written.is_ok()) {
    return written;
  }
  if (!result.ok()) {
    return Status(Code::Io, result.error.empty() ? result.not_durable : result.error);
  }
  return Status::ok();
}

}  // namespace

std::shared_ptr<Clock> Clock::system() {
  static auto clock = std::make_shared<SystemClock>();
  return clock;
}

Result<std::unique_ptr<Store>> Store::open(Options options) {
  return MvccStore::open(std::move(options));
}

// Open and close -----------------------------------------------------------------------------

MvccStore::MvccStore(Options options)
    : options_(std::move(options)), rng_(std::random_device{}()) {}

Result<std::unique_ptr<Store>> MvccStore::open(Options options) {
  std::unique_ptr<MvccStore> store(new MvccStore(std::move(options)));
  if (auto s = store->load(); !s.is_ok()) {
    return s;
  }
  return std::unique_ptr<Store>(std::move(store));
}

Status MvccStore::load() {
  clock_ = options_.clock ? options_.clock : Clock::system();
  std::error_code ec;
  if (options_.durability == Durability::Ephemeral) {
    std::string pattern = (std::filesystem::temp_directory_path() / "kube-sandbox-store-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) {
      return errno_status("create a temporary store directory");
    }
    dir_ = pattern;
    remove_dir_on_close_ = true;
  } else {
    dir_ = options_.dir;
    std::filesystem::create_directories(dir_, ec);
    if (ec) {
      return Status(Code::Io, "create " + dir_.string() + ": " + ec.message());
    }
  }
  if (options_.take_lock) {
    auto fd = lock_dir(dir_);
    if (!fd.is_ok()) {
      return fd.status();
    }
    lock_fd_ = fd.value();
  }

  backend::EnvOptions env_options;
  env_options.dir = dir_;
  env_options.sync = options_.durability == Durability::Sync;
  env_options.map_size = options_.initial_map_size;
  auto env = backend::Env::open(env_options);
  if (!env.is_ok()) {
    return env.status();
  }
  env_ = std::move(env).value();

  auto txn = env_->begin_read();
  if (!txn.is_ok()) {
    return txn.status();
  }
  Revision revision = 1;
  if (auto v = txn->get(backend::Db::Meta, kMetaRevision)) {
    revision = std::max(revision, decode_i64(*v).value_or(1));
  }
  if (auto v = txn->get(backend::Db::Meta, kMetaCompacted)) {
    compacted_rev_ = decode_i64(*v).value_or(0);
  }
  Revision replaced = 0;
  if (auto v = txn->get(backend::Db::Meta, kMetaReplaced)) {
    replaced = decode_i64(*v).value_or(0);
  }
  Status corrupt;
  Status scanned = txn->scan(backend::Db::Rev, "", "", [&](std::string_view k, std::string_view v) {
    auto rev = decode_rev(k);
    auto record = rev ? decode_record(v, rev->main) : std::nullopt;
    if (!record) {
      corrupt = Status(Code::Io, "corrupt record in the store");
      return false;
    }
    index_.append(record->kv.key, IndexEntry{*rev, record->kv.create_revision,
                                             record->kv.version, record->kv.lease,
                                             record->tombstone});
    revision = std::max(revision, rev->main);
    return true;
  });
  if (!scanned.is_ok()) {
    return scanned;
  }
  if (!corrupt.is_ok()) {
    return corrupt;
  }
  current_rev_ = revision;

  Status leases = txn->scan(backend::Db::Lease, "", "", [&](std::string_view k, std::string_view v) {
    auto id = decode_i64(k);
    auto lease = decode_lease(v);
    if (!id || !lease) {
      corrupt = Status(Code::Io, "corrupt lease in the store");
      return false;
    }
    lessor_.grant(*id, lease->ttl, from_unix_ms(lease->deadline_unix_ms));
    return true;
  });
  if (!leases.is_ok()) {
    return leases;
  }
  if (!corrupt.is_ok()) {
    return corrupt;
  }
  index_.for_each([&](const std::string& key, const std::vector<IndexEntry>& entries) {
    const IndexEntry& e = entries.back();
    if (!e.tombstone && e.lease != 0) {
      lessor_.attach(key, 0, e.lease);
    }
  });

  hub_ = std::make_shared<WatchHub>(this, options_.watcher_buffer, options_.progress_interval,
                                    current_rev_.load(), compacted_rev_.load());
  if (replaced > 0) {
    hub_->raise_floor(replaced + 1);  // replace_all's revision stays unreplayable after a reopen
  }
  hub_->start();
  commit_thread_ = std::thread([this] { commit_loop(); });
  lease_thread_ = std::thread([this] { lease_loop(); });
  return Status::ok();
}

MvccStore::~MvccStore() {
  if (lease_thread_.joinable()) {
    {
      std::lock_guard lock(lease_mu_);
      lease_stop_ = true;
    }
    lease_cv_.notify_all();
    lease_thread_.join();
  }
  if (commit_thread_.joinable()) {
    {
      std::lock_guard lock(queue_mu_);
      closing_ = true;
    }
    queue_cv_.notify_all();
    space_cv_.notify_all();
    commit_thread_.join();
  }
  if (hub_) {
    hub_->close();
  }
  env_.reset();
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);
  }
  if (remove_dir_on_close_) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

// The commit loop ----------------------------------------------------------------------------

Status MvccStore::submit(std::unique_ptr<PendingWrite> write) {
  auto done = write->done.get_future();
  {
    std::unique_lock lock(queue_mu_);
    space_cv_.wait(lock, [&] { return closing_ || queue_.size() < options_.max_queued_writes; });
    if (closing_) {
      return Status(Code::Closed);
    }
    queue_.push_back(std::move(write));
  }
  queue_cv_.notify_one();
  return done.get();
}

Status MvccStore::submit_apply(std::function<Status(Batch&)> apply) {
  auto write = std::make_unique<PendingWrite>();
  write->apply = std::move(apply);
  return submit(std::move(write));
}

void MvccStore::commit_loop() {
  while (true) {
    std::vector<std::unique_ptr<PendingWrite>> writes;
    {
      std::unique_lock lock(queue_mu_);
      queue_cv_.wait(lock, [&] { return !queue_.empty() || closing_; });
      if (queue_.empty()) {
        return;  // closing, and every queued write was served
      }
      if (queue_.front()->kind != PendingWrite::Kind::Apply) {
        writes.push_back(std::move(queue_.front()));
        queue_.pop_front();
      } else {
        while (!queue_.empty() && queue_.front()->kind == PendingWrite::Kind::Apply &&
               writes.size() < options_.max_batch) {
          writes.push_back(std::move(queue_.front()));
          queue_.pop_front();
        }
      }
    }
    space_cv_.notify_all();
    if (writes.front()->kind == PendingWrite::Kind::Apply) {
      run_batch(writes);
      continue;
    }
    PendingWrite& write = *writes.front();
    Status result;
    std::string detail;
    const bool ok = run_guarded(
        "commit loop: maintenance", [&] { result = run_maintenance(write); }, &detail);
    write.done.set_value(ok ? result : Status(Code::Internal, detail));
  }
}

Status MvccStore::run_maintenance(PendingWrite& write) {
  switch (write.kind) {
    case PendingWrite::Kind::Compact:
      return run_compaction(write.compact_revision);
    case PendingWrite::Kind::Defragment:
      return run_defragment();
    case PendingWrite::Kind::Replace:
      return run_replace(*write.contents, *write.replaced);
    case PendingWrite::Kind::Apply:
      break;
  }
  return Status(Code::Internal, "not a maintenance write");
}

void MvccStore::run_batch(std::vector<std::unique_ptr<PendingWrite>>& writes) {
  auto fail_all = [&](const Status& s) {
    for (auto& w : writes) {
      w->done.set_value(s);
    }
  };
  while (true) {
    std::shared_lock env_lock(env_mu_);
    auto txn = env_->begin_write();
    if (!txn.is_ok()) {
      fail_all(txn.status());
      return;
    }
    Revision before = current_rev_.load();
    Batch batch(txn.value(), index_, lessor_, before, options_, *clock_, rng_);
    std::vector<Status> results;
    Status fatal;
    std::optional<size_t> threw;  // the write whose apply threw: it may have half-written
    std::string detail;
    for (size_t i = 0; i < writes.size(); ++i) {
      Status s;
      if (!run_guarded(
              "commit loop: a write", [&] { s = writes[i]->apply(batch); }, &detail)) {
        threw = i;
        break;
      }
      if (s.code() == Code::Io) {
        fatal = s;
        break;
      }
      results.push_back(s);
    }
    if (threw) {
      // Nothing of the batch is visible yet: drop the transaction, fail that write alone and run
      // the others again from the start.
      txn->abort();
      writes[*threw]->done.set_value(Status(Code::Internal, detail));
      writes.erase(writes.begin() + static_cast<std::ptrdiff_t>(*threw));
      if (writes.empty()) {
        return;
      }
      continue;
    }
    if (fatal.is_ok() && batch.revision() != before) {
      fatal = txn->put(backend::Db::Meta, kMetaRevision, encode_i64(batch.revision()));
    }
    if (fatal.is_ok()) {
      fatal = txn->commit();
    }
    if (backend::is_map_full(fatal)) {
      txn->abort();  // no transaction may be open while the map is resized
      env_lock.unlock();
      std::unique_lock exclusive(env_mu_);
      if (auto s = env_->grow(); !s.is_ok()) {
        fail_all(s);
        return;
      }
      continue;  // the batch changed nothing visible: run it again from the start
    }
    if (!fatal.is_ok()) {
      fail_all(fatal);
      return;
    }
    {
      std::unique_lock index_lock(index_mu_);
      index_.merge(batch.overlay());
      current_rev_ = batch.revision();
    }
    for (const auto& change : batch.lease_changes()) {
      using Kind = Batch::LeaseChange::Kind;
      switch (change.kind) {
        case Kind::Grant:
          lessor_.grant(change.id, change.ttl, change.deadline);
          break;
        case Kind::Revoke:
          lessor_.revoke(change.id);
          break;
        case Kind::Renew:
          lessor_.renew(change.id, change.deadline);
          break;
        case Kind::Attach:
          lessor_.attach(change.key, change.from, change.id);
          break;
      }
    }
    if (!batch.events().empty()) {
      hub_->publish(batch.events(), batch.revision());
    }
    for (size_t i = 0; i < writes.size(); ++i) {
      writes[i]->done.set_value(results[i]);
    }
    return;
  }
}

Status MvccStore::run_compaction(Revision revision) {
  Revision previous = compacted_rev_.load();
  if (revision <= previous) {
    return Status(Code::Compacted);
  }
  if (revision > current_rev_.load()) {
    return Status(Code::FutureRevision);
  }
  std::vector<Rev> plan = index_.compaction_plan(revision);
  // Readers check the compacted revision before they read; raise it before the history goes.
  compacted_rev_ = revision;
  hub_->set_compacted(revision);
  Status s;
  while (true) {
    std::shared_lock env_lock(env_mu_);
    auto txn = env_->begin_write();
    if (!txn.is_ok()) {
      s = txn.status();
      break;
    }
    for (const auto& rev : plan) {
      if (s = txn->del(backend::Db::Rev, encode_rev(rev)); !s.is_ok()) {
        break;
      }
    }
    if (s.is_ok()) {
      s = txn->put(backend::Db::Meta, kMetaCompacted, encode_i64(revision));
    }
    if (s.is_ok()) {
      s = txn->commit();
    }
    if (!backend::is_map_full(s)) {
      break;
    }
    txn->abort();
    env_lock.unlock();
    std::unique_lock exclusive(env_mu_);
    if (s = env_->grow(); !s.is_ok()) {
      break;
    }
  }
  if (!s.is_ok()) {
    compacted_rev_ = previous;
    hub_->set_compacted(previous);
    return s;
  }
  std::unique_lock index_lock(index_mu_);
  index_.compact(revision);
  return Status::ok();
}

Status MvccStore::run_defragment() {
  std::unique_lock exclusive(env_mu_);
  auto data = env_->data_file();
  auto copy = data;
  copy += ".defrag";
  Status s = write_file_durably(copy, [&](int fd) { return env_->copy_to_fd(fd); });
  if (!s.is_ok()) {
    return s;
  }
  size_t map_size = env_->map_size();
  env_.reset();
  std::error_code ec;
  std::filesystem::rename(copy, data, ec);
  backend::EnvOptions env_options;
  env_options.dir = dir_;
  env_options.sync = options_.durability == Durability::Sync;
  env_options.map_size = map_size;
  auto env = backend::Env::open(env_options);
  STORE_CHECK(env.is_ok(), "reopening the store after defragmentation: " + env.status().message());
  env_ = std::move(env).value();
  if (ec) {
    return Status(Code::Io, "replace " + data.string() + ": " + ec.message());
  }
  return sync_dir(dir_);
}

// Replacing everything at once (Store::replace_all) runs alone in the commit loop, so the
// index it plans against is the committed one and nothing commits between plan and publish.
// The LMDB transaction is filled under the shared environment lock (readers go on reading the
// old state); the commit and the index swap happen under the exclusive lock, because a reader
// between its index lookup and its LMDB read must not see the records of the old state vanish
// (a plain compaction never removes a live key's newest record; a replace does).
Status MvccStore::run_replace(const std::vector<KeyValue>& contents, ReplaceResponse& response) {
  while (true) {
    std::shared_lock env_lock(env_mu_);
    auto txn = env_->begin_write();
    if (!txn.is_ok()) {
      return txn.status();
    }
    ReplaceOutcome outcome;
    Revision current = current_rev_.load();
    Status s = apply_replace(txn.value(), index_, current, contents, lessor_, outcome);
    Revision compact_at = std::max(outcome.revision, compacted_rev_.load());
    if (s.is_ok() && outcome.revision != current) {
      s = txn->put(backend::Db::Meta, kMetaRevision, encode_i64(outcome.revision));
    }
    if (s.is_ok()) {
      s = txn->put(backend::Db::Meta, kMetaCompacted, encode_i64(compact_at));
    }
    if (s.is_ok()) {
      s = txn->put(backend::Db::Meta, kMetaReplaced, encode_i64(outcome.revision));
    }
    if (backend::is_map_full(s)) {
      txn->abort();  // no transaction may be open while the map is resized
      env_lock.unlock();
      std::unique_lock exclusive(env_mu_);
      if (auto grown = env_->grow(); !grown.is_ok()) {
        return grown;
      }
      continue;
    }
    if (!s.is_ok()) {
      return s;
    }
    // Only this thread replaces env_, so it is the same environment under the exclusive lock.
    env_lock.unlock();
    std::unique_lock exclusive(env_mu_);
    s = txn->commit();
    if (backend::is_map_full(s)) {
      if (auto grown = env_->grow(); !grown.is_ok()) {
        return grown;
      }
      continue;  // the commit failed as a whole: run it again from the start
    }
    if (!s.is_ok()) {
      return s;
    }
    KeyIndex old;  // freed once readers may go on
    {
      std::unique_lock index_lock(index_mu_);
      old = std::move(index_);
      index_ = std::move(outcome.index);
      current_rev_ = outcome.revision;
      compacted_rev_ = compact_at;
    }
    exclusive.unlock();
    for (const auto& move : outcome.lease_moves) {
      lessor_.attach(move.key, move.from, move.to);
    }
    hub_->restart(outcome.revision, compact_at, outcome.revision + 1);
    response = outcome.response;
    response.compact_revision = compact_at;
    return Status::ok();
  }
}

Result<ReplaceResponse> MvccStore::replace_all(std::vector<KeyValue> kvs) {
  if (auto s = prepare_replace(kvs, options_); !s.is_ok()) {
    return s;
  }
  ReplaceResponse response;
  auto write = std::make_unique<PendingWrite>();
  write->kind = PendingWrite::Kind::Replace;
  write->contents = &kvs;
  write->replaced = &response;
  if (auto s = submit(std::move(write)); !s.is_ok()) {
    return s;
  }
  return response;
}

// KV -----------------------------------------------------------------------------------------

Result<RangeResponse> MvccStore::range(const RangeRequest& request) {
  if (request.key.empty()) {
    return Status(Code::EmptyKey);
  }
  std::shared_lock env_lock(env_mu_);
  std::vector<KeyEntry> entries;
  Revision current;
  {
    std::shared_lock index_lock(index_mu_);
    current = current_rev_.load();
    if (request.revision > current) {
      return Status(Code::FutureRevision);
    }
    if (request.revision > 0 && request.revision < compacted_rev_.load()) {
      return Status(Code::Compacted);
    }
    Revision at = request.revision > 0 ? request.revision : current;
    index_.range(request.key, request.range_end, at,
                 [&](const std::string& key, const IndexEntry& e) {
                   entries.push_back({key, e});
                   return true;
                 });
  }
  auto txn = env_->begin_read();
  if (!txn.is_ok()) {
    return txn.status();
  }
  auto response = build_range_response(
      request, std::move(entries), [&](Rev rev) { return txn->get(backend::Db::Rev, encode_rev(rev)); });
  if (response.is_ok()) {
    response->header.revision = current;
  }
  return response;
}

Result<PutResponse> MvccStore::put(const PutRequest& request) {
  PutResponse response;
  Status s = submit_apply([&](Batch& batch) {
    response = PutResponse{};
    return batch.put(request, response);
  });
  if (!s.is_ok()) {
    return s;
  }
  return response;
}

Result<DeleteRangeResponse> MvccStore::delete_range(const DeleteRangeRequest& request) {
  DeleteRangeResponse response;
  Status s = submit_apply([&](Batch& batch) {
    response = DeleteRangeResponse{};
    return batch.delete_range(request, response);
  });
  if (!s.is_ok()) {
    return s;
  }
  return response;
}

Result<TxnResponse> MvccStore::txn(const TxnRequest& request) {
  if (auto s = validate_txn(request, options_); !s.is_ok()) {
    return s;
  }
  if (request_bytes(request) > options_.max_request_bytes) {
    return Status(Code::RequestTooLarge);
  }
  TxnResponse response;
  Status s = submit_apply([&](Batch& batch) {
    response = TxnResponse{};
    return batch.txn(request, response);
  });
  if (!s.is_ok()) {
    return s;
  }
  return response;
}

Result<CompactionResponse> MvccStore::compact(const CompactionRequest& request) {
  auto write = std::make_unique<PendingWrite>();
  write->kind = PendingWrite::Kind::Compact;
  write->compact_revision = request.revision;
  if (auto s = submit(std::move(write)); !s.is_ok()) {
    return s;
  }
  CompactionResponse response;
  response.header.revision = current_rev_.load();
  return response;
}

std::shared_ptr<Watcher> MvccStore::watch(const WatchRequest& request) {
  return hub_->add(request);
}

Status MvccStore::read_history(Revision from, Revision to, size_t max_revisions,
                               std::vector<RevisionEvents>& out, Revision& next) {
  std::shared_lock env_lock(env_mu_);
  auto txn = env_->begin_read();
  if (!txn.is_ok()) {
    return txn.status();
  }
  if (from < compacted_rev_.load()) {
    return Status(Code::Compacted);
  }
  next = to + 1;
  Status corrupt;
  Status s = txn->scan(
      backend::Db::Rev, encode_rev({from, 0}), encode_rev({to + 1, 0}),
      [&](std::string_view k, std::string_view v) {
        auto rev = decode_rev(k);
        auto record = rev ? decode_record(v, rev->main) : std::nullopt;
        if (!record) {
          corrupt = Status(Code::Io, "corrupt record in the store");
          return false;
        }
        if (out.empty() || out.back().revision != rev->main) {
          if (out.size() == max_revisions) {
            next = rev->main;
            return false;
          }
          out.push_back({rev->main, {}});
        }
        Event event;
        event.type = record->tombstone ? Event::Type::Delete : Event::Type::Put;
        event.kv = std::move(record->kv);
        if (record->tombstone) {
          event.kv = KeyValue{event.kv.key, 0, rev->main, 0, {}, 0};
        }
        std::optional<Rev> previous;
        {
          std::shared_lock index_lock(index_mu_);
          const IndexEntry* e = index_.before(event.kv.key, *rev);
          if (e != nullptr && !e->tombstone) {
            previous = e->rev;
          }
        }
        if (previous) {
          if (auto bytes = txn->get(backend::Db::Rev, encode_rev(*previous))) {
            if (auto prev = decode_record(*bytes, previous->main)) {
              event.prev_kv = std::move(prev->kv);
            }
          }
        }
        out.back().events.push_back(std::move(event));
        return true;
      });
  if (!s.is_ok()) {
    return s;
  }
  return corrupt;
}

// Leases -------------------------------------------------------------------------------------

Result<LeaseGrantResponse> MvccStore::lease_grant(const LeaseGrantRequest& request) {
  LeaseGrantResponse response;
  Status s = submit_apply([&](Batch& batch) {
    response = LeaseGrantResponse{};
    return batch.lease_grant(request, response);
  });
  if (!s.is_ok()) {
    return s;
  }
  return response;
}

Result<LeaseRevokeResponse> MvccStore::lease_revoke(LeaseId id) {
  LeaseRevokeResponse response;
  Status s = submit_apply([&](Batch& batch) {
    response = LeaseRevokeResponse{};
    return batch.lease_revoke(id, response);
  });
  if (!s.is_ok()) {
    return s;
  }
  return response;
}

Result<LeaseKeepAliveResponse> MvccStore::lease_keep_alive(LeaseId id) {
  LeaseKeepAliveResponse response;
  Status s = submit_apply([&](Batch& batch) {
    response = LeaseKeepAliveResponse{};
    return batch.lease_renew(id, response);
  });
  if (!s.is_ok()) {
    return s;
  }
  return response;
}

Result<LeaseTimeToLiveResponse> MvccStore::lease_time_to_live(LeaseId id, bool keys) {
  LeaseTimeToLiveResponse response;
  response.header.revision = current_rev_.load();
  response.id = id;
  auto lease = lessor_.get(id);
  if (!lease) {
    return response;  // ttl -1: unknown or already revoked, as etcd answers
  }
  auto left = std::chrono::duration_cast<std::chrono::seconds>(lease->deadline - clock_->now());
  response.ttl = left.count() >= 0 ? left.count() : -1;
  response.granted_ttl = lease->ttl;
  if (keys) {
    response.keys.assign(lease->keys.begin(), lease->keys.end());
  }
  return response;
}

Result<LeaseLeasesResponse> MvccStore::lease_leases() {
  LeaseLeasesResponse response;
  response.header.revision = current_rev_.load();
  for (LeaseId id : lessor_.ids()) {
    response.leases.push_back({id});
  }
  return response;
}

void MvccStore::expire_leases() {
  std::lock_guard lock(lease_mu_);
  for (LeaseId id : lessor_.expired(clock_->now())) {
    lease_revoke(id);  // LeaseNotFound if someone revoked it first: nothing left to do
  }
}

void MvccStore::expire_leases_for_test() { expire_leases(); }

void MvccStore::lease_loop() {
  while (true) {
    {
      std::unique_lock lock(lease_mu_);
      lease_cv_.wait_for(lock, options_.lease_check_interval, [&] { return lease_stop_; });
      if (lease_stop_) {
        return;
      }
    }
    run_guarded("lease timer", [&] { expire_leases(); });
  }
}

// Maintenance --------------------------------------------------------------------------------

Result<StatusResponse> MvccStore::status() {
  std::shared_lock env_lock(env_mu_);
  StatusResponse response;
  auto in_use = env_->size_in_use();
  if (!in_use.is_ok()) {
    return in_use.status();
  }
  response.db_size = env_->file_size();
  response.db_size_in_use = std::min(in_use.value(), response.db_size);
  response.compact_revision = compacted_rev_.load();
  std::shared_lock index_lock(index_mu_);
  response.header.revision = current_rev_.load();
  response.key_count = static_cast<int64_t>(index_.live_keys());
  return response;
}

Status MvccStore::snapshot(const std::filesystem::path& file) {
  std::shared_lock env_lock(env_mu_);
  return write_file_durably(file, [&](int fd) { return env_->copy_to_fd(fd); });
}

Status MvccStore::defragment() {
  auto write = std::make_unique<PendingWrite>();
  write->kind = PendingWrite::Kind::Defragment;
  return submit(std::move(write));
}

Status MvccStore::check_integrity() {
  std::shared_lock env_lock(env_mu_);
  std::shared_lock index_lock(index_mu_);
  Revision current = current_rev_.load();
  auto txn = env_->begin_read();
  if (!txn.is_ok()) {
    return txn.status();
  }
  KeyIndex rebuilt;
  Status problem;
  Status s = txn->scan(backend::Db::Rev, "", "", [&](std::string_view k, std::string_view v) {
    auto rev = decode_rev(k);
    auto record = rev ? decode_record(v, rev->main) : std::nullopt;
    if (!record) {
      problem = Status(Code::Io, "integrity: a record does not decode");
      return false;
    }
    if (rev->main > current) {
      return true;  // committed by a batch that is being published right now
    }
    rebuilt.append(record->kv.key, IndexEntry{*rev, record->kv.create_revision,
                                              record->kv.version, record->kv.lease,
                                              record->tombstone});
    return true;
  });
  if (!s.is_ok()) {
    return s;
  }
  if (!problem.is_ok()) {
    return problem;
  }
  std::vector<std::pair<std::string, std::vector<IndexEntry>>> a, b;
  index_.for_each([&](const std::string& key, const std::vector<IndexEntry>& e) {
    a.emplace_back(key, e);
  });
  rebuilt.for_each([&](const std::string& key, const std::vector<IndexEntry>& e) {
    b.emplace_back(key, e);
  });
  auto same = [](const IndexEntry& x, const IndexEntry& y) {
    return x.rev == y.rev && x.create_revision == y.create_revision && x.version == y.version &&
           x.lease == y.lease && x.tombstone == y.tombstone;
  };
  if (a.size() != b.size()) {
    return Status(Code::Io, "integrity: the key index and the database hold different keys");
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].first != b[i].first || a[i].second.size() != b[i].second.size() ||
        !std::equal(a[i].second.begin(), a[i].second.end(), b[i].second.begin(), same)) {
      return Status(Code::Io, "integrity: the key index disagrees with the database at key " +
                                  a[i].first);
    }
  }
  auto meta_rev = txn->get(backend::Db::Meta, kMetaRevision);
  if (current > 1 && (!meta_rev || decode_i64(*meta_rev).value_or(0) < current)) {
    return Status(Code::Io, "integrity: the stored revision is behind the store's revision");
  }
  if (compacted_rev_.load() > current) {
    return Status(Code::Io, "integrity: the compacted revision is ahead of the revision");
  }
  return txn->scan(backend::Db::Lease, "", "", [&](std::string_view k, std::string_view v) {
    if (!decode_i64(k) || !decode_lease(v)) {
      problem = Status(Code::Io, "integrity: a lease does not decode");
      return false;
    }
    return true;
  }).is_ok() ? problem : Status(Code::Io, "integrity: reading leases failed");
}

// Restore ------------------------------------------------------------------------------------

Status restore_snapshot(const std::filesystem::path& snapshot, const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(snapshot, ec)) {
    return Status(Code::InvalidArgument, "snapshot " + snapshot.string() + " is not a file");
  }
  std::filesystem::create_directories(dir, ec);
  auto held = lock_dir(dir);
  if (!held.is_ok()) {
    return held.status();
  }
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{held.value()};

  // Check the snapshot by opening it as a store of its own before it replaces anything.
  auto staging = dir / "restore.staging";
  std::filesystem::remove_all(staging, ec);
  std::filesystem::create_directories(staging, ec);
  std::filesystem::copy_file(snapshot, staging / "data.mdb", ec);
  if (ec) {
    return Status(Code::Io, "copy " + snapshot.string() + ": " + ec.message());
  }
  {
    Options options;
    options.dir = staging;
    options.durability = Durability::NoSync;
    options.take_lock = false;
    auto opened = Store::open(options);
    if (!opened.is_ok()) {
      std::filesystem::remove_all(staging, ec);
      return Status(Code::InvalidArgument,
                    "snapshot " + snapshot.string() + " is not a valid store: " +
                        opened.status().message());
    }
    if (auto s = opened.value()->check_integrity(); !s.is_ok()) {
      std::filesystem::remove_all(staging, ec);
      return s;
    }
  }
  int fd = ::open((staging / "data.mdb").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  std::filesystem::rename(staging / "data.mdb", dir / "data.mdb", ec);
  if (ec) {
    return Status(Code::Io, "replace the store in " + dir.string() + ": " + ec.message());
  }
  std::filesystem::remove(dir / "lock.mdb", ec);
  std::filesystem::remove_all(staging, ec);
  return sync_dir(dir);
}

}  // namespace store
