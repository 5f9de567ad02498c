// MvccStore's maintenance: compaction, defragmentation and replace_all (each runs alone in the
// commit loop), status, snapshots, the integrity check, and restoring a snapshot into a directory.
#include "mvcc_store.h"

#include <algorithm>

#include <fcntl.h>
#include <unistd.h>

#include "guard.h"
#include "replace.h"
#include "store_dir.h"

namespace store {

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
  Status s = scan_records(txn.value(), "integrity: a record does not decode",
                          [&](const Record& record, const IndexEntry& e) {
                            if (e.rev.main > current) {
                              return true;  // committed by a batch being published right now
                            }
                            rebuilt.append(record.kv.key, e);
                            return true;
                          });
  if (!s.is_ok()) {
    return s;
  }
  std::vector<std::pair<std::string, std::vector<IndexEntry>>> a, b;
  index_.for_each(
      [&](const std::string& key, const std::vector<IndexEntry>& e) { a.emplace_back(key, e); });
  rebuilt.for_each(
      [&](const std::string& key, const std::vector<IndexEntry>& e) { b.emplace_back(key, e); });
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
      return Status(Code::Io,
                    "integrity: the key index disagrees with the database at key " + a[i].first);
    }
  }
  auto meta_rev = txn->get(backend::Db::Meta, kMetaRevision);
  if (current > 1 && (!meta_rev || decode_i64(*meta_rev).value_or(0) < current)) {
    return Status(Code::Io, "integrity: the stored revision is behind the store's revision");
  }
  if (compacted_rev_.load() > current) {
    return Status(Code::Io, "integrity: the compacted revision is ahead of the revision");
  }
  Status problem;
  return txn->scan(backend::Db::Lease, "", "",
                   [&](std::string_view k, std::string_view v) {
                     if (!decode_i64(k) || !decode_lease(v)) {
                       problem = Status(Code::Io, "integrity: a lease does not decode");
                       return false;
                     }
                     return true;
                   })
                 .is_ok()
             ? problem
             : Status(Code::Io, "integrity: reading leases failed");
}

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
      return Status(
          Code::InvalidArgument,
          "snapshot " + snapshot.string() + " is not a valid store: " + opened.status().message());
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
