#include "backend/lmdb_env.h"

#include <lmdb.h>
#include <sys/stat.h>

namespace store::backend {
namespace {

constexpr const char* kMapFullMarker = "MDB_MAP_FULL";

Status lmdb_error(int rc, const char* what) {
  std::string message = std::string(what) + ": " + mdb_strerror(rc);
  if (rc == MDB_MAP_FULL) {
    message += " (" + std::string(kMapFullMarker) + ")";
  }
  return Status(Code::Io, message);
}

MDB_val to_val(std::string_view s) {
  return MDB_val{s.size(), const_cast<char*>(s.data())};
}

std::string_view to_view(const MDB_val& v) {
  return {static_cast<const char*>(v.mv_data), v.mv_size};
}

}  // namespace

bool is_map_full(const Status& status) {
  return status.code() == Code::Io && status.message().find(kMapFullMarker) != std::string::npos;
}

// Txn ----------------------------------------------------------------------------------------

Txn::Txn(Txn&& other) noexcept : env_(other.env_), txn_(other.txn_) { other.txn_ = nullptr; }

Txn::~Txn() {
  if (txn_ != nullptr) {
    mdb_txn_abort(static_cast<MDB_txn*>(txn_));
  }
}

std::optional<std::string_view> Txn::get(Db db, std::string_view key) {
  MDB_val k = to_val(key);
  MDB_val v;
  int rc = mdb_get(static_cast<MDB_txn*>(txn_), env_->dbi(db), &k, &v);
  if (rc != 0) {
    return std::nullopt;
  }
  return to_view(v);
}

Status Txn::put(Db db, std::string_view key, std::string_view value) {
  MDB_val k = to_val(key);
  MDB_val v = to_val(value);
  int rc = mdb_put(static_cast<MDB_txn*>(txn_), env_->dbi(db), &k, &v, 0);
  return rc == 0 ? Status::ok() : lmdb_error(rc, "put");
}

Status Txn::del(Db db, std::string_view key) {
  MDB_val k = to_val(key);
  int rc = mdb_del(static_cast<MDB_txn*>(txn_), env_->dbi(db), &k, nullptr);
  return (rc == 0 || rc == MDB_NOTFOUND) ? Status::ok() : lmdb_error(rc, "delete");
}

Status Txn::commit() {
  int rc = mdb_txn_commit(static_cast<MDB_txn*>(txn_));
  txn_ = nullptr;  // committed or, on failure, freed by LMDB
  return rc == 0 ? Status::ok() : lmdb_error(rc, "commit");
}

void Txn::abort() {
  if (txn_ != nullptr) {
    mdb_txn_abort(static_cast<MDB_txn*>(txn_));
    txn_ = nullptr;
  }
}

Status Txn::scan(Db db, std::string_view from, std::string_view to,
                 const std::function<bool(std::string_view, std::string_view)>& fn) {
  MDB_cursor* cursor = nullptr;
  int rc = mdb_cursor_open(static_cast<MDB_txn*>(txn_), env_->dbi(db), &cursor);
  if (rc != 0) {
    return lmdb_error(rc, "cursor");
  }
  MDB_val k = to_val(from);
  MDB_val v;
  rc = mdb_cursor_get(cursor, &k, &v, from.empty() ? MDB_FIRST : MDB_SET_RANGE);
  while (rc == 0) {
    std::string_view key = to_view(k);
    if (!to.empty() && key >= to) {
      break;
    }
    if (!fn(key, to_view(v))) {
      break;
    }
    rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT);
  }
  mdb_cursor_close(cursor);
  return (rc == 0 || rc == MDB_NOTFOUND) ? Status::ok() : lmdb_error(rc, "scan");
}

std::optional<std::pair<std::string_view, std::string_view>> Txn::last(Db db) {
  MDB_cursor* cursor = nullptr;
  if (mdb_cursor_open(static_cast<MDB_txn*>(txn_), env_->dbi(db), &cursor) != 0) {
    return std::nullopt;
  }
  MDB_val k, v;
  int rc = mdb_cursor_get(cursor, &k, &v, MDB_LAST);
  mdb_cursor_close(cursor);
  if (rc != 0) {
    return std::nullopt;
  }
  return std::make_pair(to_view(k), to_view(v));
}

size_t Txn::count(Db db) {
  MDB_stat stat;
  if (mdb_stat(static_cast<MDB_txn*>(txn_), env_->dbi(db), &stat) != 0) {
    return 0;
  }
  return stat.ms_entries;
}

// Env ----------------------------------------------------------------------------------------

Result<std::unique_ptr<Env>> Env::open(const EnvOptions& options) {
  std::unique_ptr<Env> env(new Env());
  env->options_ = options;
  env->map_size_ = options.map_size;
  MDB_env* raw = nullptr;
  int rc = mdb_env_create(&raw);
  if (rc != 0) {
    return lmdb_error(rc, "create environment");
  }
  env->env_ = raw;
  mdb_env_set_maxdbs(raw, 3);
  mdb_env_set_maxreaders(raw, options.max_readers);
  // The data file may already be larger than the requested map (it grew last time).
  const bool read_only = !options.read_only_file.empty();
  std::error_code ec;
  auto existing = std::filesystem::file_size(env->data_file(), ec);
  while (!ec && env->map_size_ < existing) {
    env->map_size_ *= 2;
  }
  mdb_env_set_mapsize(raw, env->map_size_);
  unsigned flags = MDB_NOTLS;
  if (!options.sync) {
    flags |= MDB_NOSYNC;
  }
  if (read_only) {
    // A snapshot file: nothing writes it, so no lock file is needed next to it.
    flags |= MDB_RDONLY | MDB_NOSUBDIR | MDB_NOLOCK;
  }
  const std::filesystem::path& where = read_only ? options.read_only_file : options.dir;
  // The files hold every Secret: owner only. A new store's directory is made owner-only too;
  // an existing one keeps the mode its owner chose (the sandbox warns about a loose one).
  if (!read_only && ec) {
    std::filesystem::permissions(options.dir, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::replace, ec);
  }
  rc = mdb_env_open(raw, where.c_str(), flags, 0600);
  if (rc != 0) {
    return lmdb_error(rc, ("open " + where.string()).c_str());
  }
  MDB_txn* txn = nullptr;
  rc = mdb_txn_begin(raw, nullptr, read_only ? MDB_RDONLY : 0, &txn);
  if (rc != 0) {
    return lmdb_error(rc, "begin");
  }
  const char* names[3] = {"rev", "meta", "lease"};
  for (int i = 0; i < 3; ++i) {
    MDB_dbi dbi;
    rc = mdb_dbi_open(txn, names[i], read_only ? 0 : MDB_CREATE, &dbi);
    if (rc != 0) {
      mdb_txn_abort(txn);
      return lmdb_error(rc, "open database");
    }
    env->dbis_[i] = dbi;
  }
  rc = mdb_txn_commit(txn);
  if (rc != 0) {
    return lmdb_error(rc, "commit");
  }
  return env;
}

Env::~Env() {
  if (env_ != nullptr) {
    mdb_env_close(static_cast<MDB_env*>(env_));
  }
}

Result<Txn> Env::begin_read() {
  MDB_txn* txn = nullptr;
  int rc = mdb_txn_begin(static_cast<MDB_env*>(env_), nullptr, MDB_RDONLY, &txn);
  if (rc != 0) {
    return lmdb_error(rc, "begin read");
  }
  return Txn(this, txn);
}

Result<Txn> Env::begin_write() {
  MDB_txn* txn = nullptr;
  int rc = mdb_txn_begin(static_cast<MDB_env*>(env_), nullptr, 0, &txn);
  if (rc != 0) {
    return lmdb_error(rc, "begin write");
  }
  return Txn(this, txn);
}

Status Env::grow() {
  int rc = mdb_env_set_mapsize(static_cast<MDB_env*>(env_), map_size_ * 2);
  if (rc != 0) {
    return lmdb_error(rc, "grow map");
  }
  map_size_ *= 2;
  return Status::ok();
}

int64_t Env::file_size() const {
  struct stat st;
  if (::stat(data_file().c_str(), &st) != 0) {
    return 0;
  }
  return st.st_size;
}

Result<int64_t> Env::size_in_use() {
  auto* env = static_cast<MDB_env*>(env_);
  MDB_txn* txn = nullptr;
  int rc = mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn);
  if (rc != 0) {
    return lmdb_error(rc, "begin read");
  }
  MDB_envinfo info;
  mdb_env_info(env, &info);
  MDB_stat stat;
  mdb_env_stat(env, &stat);
  // The free list is database 0; each value is an array of page numbers led by its length.
  size_t free_pages = 0;
  MDB_cursor* cursor = nullptr;
  if (mdb_cursor_open(txn, 0, &cursor) == 0) {
    MDB_val k, v;
    while (mdb_cursor_get(cursor, &k, &v, MDB_NEXT) == 0) {
      free_pages += *static_cast<const size_t*>(v.mv_data);
    }
    mdb_cursor_close(cursor);
  }
  mdb_txn_abort(txn);
  size_t used_pages = info.me_last_pgno + 1;
  used_pages = used_pages > free_pages ? used_pages - free_pages : 0;
  return static_cast<int64_t>(used_pages * stat.ms_psize);
}

Status Env::copy_to_fd(int fd) {
  int rc = mdb_env_copyfd2(static_cast<MDB_env*>(env_), fd, MDB_CP_COMPACT);
  return rc == 0 ? Status::ok() : lmdb_error(rc, "copy");
}

}  // namespace store::backend
