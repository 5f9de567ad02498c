// Named snapshots of the store: files <dir>/<NAME>.snap (dir is <data-dir>/snapshots), saved
// from and restored into a store that is open. `kube-sandbox snapshot` uses these functions on
// the data directory (offline); the API server's /admin/snapshots endpoint uses them online.
//
// Restoring does not go back in time: the snapshot's keys and values are applied to the open
// store with Store::replace_all, as one write at a new revision with the history compacted
// there, so every resourceVersion handed out afterwards is greater than any handed out before,
// older ones answer 410, and every watch ends with 410 (see store.h for the whole contract).
// The API server then rebuilds what it keeps in memory (ApiServer::restore_snapshot).
//
// Thread-safety: the functions keep no state; two calls on the same name race as their file
// operations do (save and delete are each atomic renames or unlinks).
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

namespace apiserver::snapshots {

// The rule for names: [a-z0-9][a-z0-9._-]{0,62}.
bool valid_name(const std::string& name);
// `invalid snapshot name "X": a name is 1 to 63 characters of [a-z0-9._-] that starts with a
// letter or digit`.
std::string invalid_name_message(const std::string& name);
// <dir>/<name>.snap
std::filesystem::path file_of(const std::filesystem::path& dir, const std::string& name);

struct Info {
  std::string name;
  int64_t size_bytes = 0;
  int64_t revision = 0;  // the store revision the snapshot holds
  std::string created;   // when the file was written, RFC 3339 in UTC
};

// What a restore did and how long it took inside the process (reading the snapshot file and
// the replace, not any request overhead).
struct Restored {
  std::string name;
  store::ReplaceResponse replaced;
  double duration_ms = 0;
};

enum class ErrorKind {
  None,
  BadName,   // the name breaks the rule
  NotFound,  // no snapshot of that name
  Failed,    // the store or the file system failed; the message says how
};

struct Error {
  ErrorKind kind = ErrorKind::None;
  std::string message;
  explicit operator bool() const { return kind != ErrorKind::None; }
};

// Writes a consistent copy of `store` as `name` (replacing one of the same name atomically);
// creates `dir` (mode 0700) when missing. `existed` tells whether a snapshot was replaced.
Error save(store::Store& store, const std::filesystem::path& dir, const std::string& name,
           Info& out, bool& existed);
// Applies snapshot `name` to `store` (Store::replace_all).
Error restore(store::Store& store, const std::filesystem::path& dir, const std::string& name,
              Restored& out);
Error find(const std::filesystem::path& dir, const std::string& name, Info& out);
// Every snapshot in `dir`, by name; an empty list when `dir` does not exist.
Error list(const std::filesystem::path& dir, std::vector<Info>& out);
// Deletes snapshot `name`; `out` is what it was.
Error remove(const std::filesystem::path& dir, const std::string& name, Info& out);

// The JSON shapes of the /admin/snapshots endpoint, shared with its client:
//   {"kind":"Snapshot","name":"base","revision":42,"sizeBytes":81920,
//    "created":"2025-01-02T03:04:05Z"}
//   {"kind":"SnapshotList","items":[<Snapshot>...]}
//   {"kind":"SnapshotRestore","name":"base","revision":57,"compactRevision":57,"written":3,
//    "deleted":1,"unchanged":9996,"durationMs":41.7}
nlohmann::json to_json(const Info& info);
nlohmann::json to_json(const std::vector<Info>& infos);
nlohmann::json to_json(const Restored& restored);
// nullopt when `doc` is not a Snapshot.
std::optional<Info> info_from_json(const nlohmann::json& doc);

}  // namespace apiserver::snapshots
