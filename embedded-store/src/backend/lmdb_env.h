// The store's only door to LMDB. Owns the environment and its named databases, turns LMDB's
// return codes into store::Status, and hides lmdb.h from the rest of the store.
//
// Databases (all keys compared as bytes):
//   "rev"   revision (8-byte big-endian main, 8-byte big-endian sub) -> encoded record
//   "meta"  small named values (current revision, compacted revision)
//   "lease" lease ID (8-byte big-endian) -> encoded lease
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "store/status.h"

namespace store::backend {

enum class Db { Rev, Meta, Lease };

struct EnvOptions {
  std::filesystem::path dir;
  // When set, `dir` is ignored and this single file (a copy made by copy_to_fd) is opened
  // read-only without a lock file: begin_write() and the named databases' creation fail.
  std::filesystem::path read_only_file;
  bool sync = true;  // false: no fsync on commit (survives a process crash, not a power loss)
  size_t map_size = size_t{1} << 30;
  unsigned max_readers = 1024;
};

class Env;

// A transaction. Read transactions may be used from any thread (MDB_NOTLS) but by one thread at
// a time; a write transaction belongs to the thread that began it. Views returned by get() and
// by cursors stay valid until the transaction ends or the next write in it.
class Txn {
 public:
  Txn(Txn&&) noexcept;
  Txn& operator=(Txn&&) = delete;
  ~Txn();  // aborts unless committed

  std::optional<std::string_view> get(Db db, std::string_view key);
  Status put(Db db, std::string_view key, std::string_view value);
  Status del(Db db, std::string_view key);  // absent keys are not an error
  Status commit();
  void abort();  // ends the transaction now; later calls on it are invalid

  // Calls fn(key, value) for every entry with key >= from (and < to when to is not empty), in
  // order, until fn returns false.
  Status scan(Db db, std::string_view from, std::string_view to,
              const std::function<bool(std::string_view, std::string_view)>& fn);
  // The last entry of a database, if any.
  std::optional<std::pair<std::string_view, std::string_view>> last(Db db);
  // Number of entries in a database.
  size_t count(Db db);

 private:
  friend class Env;
  Txn(Env* env, void* txn) : env_(env), txn_(txn) {}
  Env* env_;
  void* txn_;  // MDB_txn*
};

class Env {
 public:
  static Result<std::unique_ptr<Env>> open(const EnvOptions& options);
  ~Env();

  Result<Txn> begin_read();
  Result<Txn> begin_write();

  // Doubles the map size. No transaction of this process may be open.
  Status grow();
  size_t map_size() const { return map_size_; }

  // Bytes of the data file, and bytes of pages in use (allocated and not on the free list).
  int64_t file_size() const;
  Result<int64_t> size_in_use();

  // Writes a compacted, consistent copy of the database to an open file descriptor.
  Status copy_to_fd(int fd);

  std::filesystem::path data_file() const {
    return options_.read_only_file.empty() ? options_.dir / "data.mdb" : options_.read_only_file;
  }

 private:
  friend class Txn;
  Env() = default;
  unsigned dbi(Db db) const { return dbis_[static_cast<int>(db)]; }

  EnvOptions options_;
  void* env_ = nullptr;  // MDB_env*
  unsigned dbis_[3] = {0, 0, 0};
  size_t map_size_ = 0;
};

// True if `status` is LMDB's "map full", which grow() cures.
bool is_map_full(const Status& status);

}  // namespace store::backend
