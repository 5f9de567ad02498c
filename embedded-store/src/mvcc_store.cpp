// MvccStore opened and closed: the directory (temporary or locked), the LMDB environment, the
// key index and leases rebuilt from it, and the threads started and stopped. MvccStore's other
// members are spread by concept: mvcc_writes.cpp (the commit loop and writes), mvcc_reads.cpp,
// mvcc_leases.cpp and mvcc_maintenance.cpp (compaction, defragmentation, replace_all, snapshots,
// integrity, restore).
#include "mvcc_store.h"

#include <unistd.h>

#include "store_dir.h"

namespace store {
namespace {

WallTime from_unix_ms(int64_t ms) {
  return WallTime(std::chrono::milliseconds(ms));
}

class SystemClock final : public Clock {
 public:
  std::chrono::system_clock::time_point now() const override {
    return std::chrono::system_clock::now();
  }
};

}  // namespace

std::shared_ptr<Clock> Clock::system() {
  static auto clock = std::make_shared<SystemClock>();
  return clock;
}

Result<std::unique_ptr<Store>> Store::open(Options options) {
  return MvccStore::open(std::move(options));
}

MvccStore::MvccStore(Options options)
    : options_(std::move(options)), rng_(std::random_device{}()) {}

Result<std::unique_ptr<Store>> MvccStore::open(Options options) {
  std::unique_ptr<MvccStore> store(new MvccStore(std::move(options)));
  if (auto s = store->load(); !s.is_ok()) {
    return s;
  }
  return std::unique_ptr<Store>(std::move(store));
}

Status MvccStore::scan_records(
    backend::Txn& txn, const char* corrupt,
    const std::function<bool(const Record& record, const IndexEntry& entry)>& visit) {
  Status problem;
  Status scanned = txn.scan(backend::Db::Rev, "", "", [&](std::string_view k, std::string_view v) {
    auto rev = decode_rev(k);
    auto record = rev ? decode_record(v, rev->main) : std::nullopt;
    if (!record) {
      problem = Status(Code::Io, corrupt);
      return false;
    }
    return visit(*record, IndexEntry{*rev, record->kv.create_revision, record->kv.version,
                                     record->kv.lease, record->tombstone});
  });
  return scanned.is_ok() ? problem : scanned;
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
  Status scanned = scan_records(txn.value(), "corrupt record in the store",
                                [&](const Record& record, const IndexEntry& e) {
                                  index_.append(record.kv.key, e);
                                  revision = std::max(revision, e.rev.main);
                                  return true;
                                });
  if (!scanned.is_ok()) {
    return scanned;
  }
  current_rev_ = revision;

  Status corrupt;
  Status leases =
      txn->scan(backend::Db::Lease, "", "", [&](std::string_view k, std::string_view v) {
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

}  // namespace store
