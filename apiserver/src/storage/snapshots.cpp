#include "apiserver/snapshots.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <system_error>

#include "common/durable_file.h"
#include "common/rfc3339.h"

namespace apiserver::snapshots {
namespace {

constexpr const char* kExtension = ".snap";
constexpr size_t kMaxNameLength = 63;

bool name_char(char c, bool first) {
  bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  return alnum || (!first && (c == '.' || c == '_' || c == '-'));
}

Error not_found(const std::string& name) {
  return {ErrorKind::NotFound, "snapshots \"" + name + "\" not found"};
}

std::string modified_time(const std::filesystem::path& file) {
  std::error_code ec;
  auto written = std::filesystem::last_write_time(file, ec);
  if (ec) {
    return "";
  }
  return common::format_rfc3339(std::chrono::time_point_cast<std::chrono::system_clock::duration>(
      std::chrono::file_clock::to_sys(written)));
}

}  // namespace

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameLength) {
    return false;
  }
  for (size_t i = 0; i < name.size(); ++i) {
    if (!name_char(name[i], i == 0)) {
      return false;
    }
  }
  return true;
}

std::string invalid_name_message(const std::string& name) {
  return "invalid snapshot name \"" + name +
         "\": a name is 1 to 63 characters of [a-z0-9._-] that starts with a letter or digit";
}

std::filesystem::path file_of(const std::filesystem::path& dir, const std::string& name) {
  return dir / (name + kExtension);
}

Error find(const std::filesystem::path& dir, const std::string& name, Info& out) {
  if (!valid_name(name)) {
    return {ErrorKind::BadName, invalid_name_message(name)};
  }
  auto file = file_of(dir, name);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return not_found(name);
  }
  auto contents = store::read_snapshot(file, false);
  if (!contents.is_ok()) {
    return {ErrorKind::Failed, "snapshot \"" + name + "\": " + contents.status().message()};
  }
  out = Info{};
  out.name = name;
  out.size_bytes = static_cast<int64_t>(std::filesystem::file_size(file, ec));
  out.revision = contents->revision;
  out.created = modified_time(file);
  return {};
}

Error save(store::Store& store, const std::filesystem::path& dir, const std::string& name,
           Info& out, bool& existed) {
  if (!valid_name(name)) {
    return {ErrorKind::BadName, invalid_name_message(name)};
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      return {ErrorKind::Failed, "create " + dir.string() + ": " + ec.message()};
    }
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::replace, ec);
    // The new directory's own entry, so that a saved snapshot cannot vanish with it.
    if (const std::string error = common::fsync_dir(dir.parent_path()); !error.empty()) {
      return {ErrorKind::Failed, "create " + dir.string() + ": " + error};
    }
  }
  auto file = file_of(dir, name);
  existed = std::filesystem::exists(file, ec);
  // Store::snapshot writes a temporary file, renames it and fsyncs the directory: a reader never
  // sees half of one, and an acknowledged one survives a power loss.
  if (auto s = store.snapshot(file); !s.is_ok()) {
    return {ErrorKind::Failed, "save snapshot \"" + name + "\": " + s.message()};
  }
  return find(dir, name, out);
}

Error restore(store::Store& store, const std::filesystem::path& dir, const std::string& name,
              Restored& out) {
  Info info;
  if (auto error = find(dir, name, info)) {
    return error;
  }
  auto started = std::chrono::steady_clock::now();
  auto contents = store::read_snapshot(file_of(dir, name));
  if (!contents.is_ok()) {
    return {ErrorKind::Failed, "snapshot \"" + name + "\": " + contents.status().message()};
  }
  auto replaced = store.replace_all(std::move(contents->kvs));
  if (!replaced.is_ok()) {
    return {ErrorKind::Failed, "restore snapshot \"" + name + "\": " + replaced.status().message()};
  }
  out = Restored{};
  out.name = name;
  out.replaced = replaced.value();
  out.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return {};
}

Error list(const std::filesystem::path& dir, std::vector<Info>& out) {
  out.clear();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return {};
  }
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) {
    return {ErrorKind::Failed, "read " + dir.string() + ": " + ec.message()};
  }
  for (const auto& entry : it) {
    const auto& path = entry.path();
    // Only finished snapshots: a save in progress writes NAME.snap.tmp.<pid>.<n>.
    if (path.extension() != kExtension || !valid_name(path.stem().string())) {
      continue;
    }
    Info info;
    if (auto error = find(dir, path.stem().string(), info)) {
      if (error.kind == ErrorKind::NotFound) {
        continue;  // deleted meanwhile
      }
      return error;
    }
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const Info& a, const Info& b) { return a.name < b.name; });
  return {};
}

Error remove(const std::filesystem::path& dir, const std::string& name, Info& out) {
  if (auto error = find(dir, name, out)) {
    return error;
  }
  std::error_code ec;
  if (!std::filesystem::remove(file_of(dir, name), ec)) {
    return ec ? Error{ErrorKind::Failed, "delete snapshot \"" + name + "\": " + ec.message()}
              : not_found(name);
  }
  if (const std::string error = common::fsync_dir(dir); !error.empty()) {
    return {ErrorKind::Failed, "delete snapshot \"" + name + "\": " + error};
  }
  return {};
}

nlohmann::json to_json(const Info& info) {
  return {{"kind", "Snapshot"},
          {"name", info.name},
          {"revision", info.revision},
          {"sizeBytes", info.size_bytes},
          {"created", info.created}};
}

nlohmann::json to_json(const std::vector<Info>& infos) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& info : infos) {
    items.push_back(to_json(info));
  }
  return {{"kind", "SnapshotList"}, {"items", std::move(items)}};
}

nlohmann::json to_json(const Restored& restored) {
  return {{"kind", "SnapshotRestore"},
          {"name", restored.name},
          {"revision", restored.replaced.header.revision},
          {"compactRevision", restored.replaced.compact_revision},
          {"written", restored.replaced.written},
          {"deleted", restored.replaced.deleted},
          {"unchanged", restored.replaced.unchanged},
          {"durationMs", restored.duration_ms}};
}

std::optional<Info> info_from_json(const nlohmann::json& doc) {
  if (!doc.is_object() || doc.value("kind", "") != "Snapshot" || !doc.contains("name") ||
      !doc["name"].is_string()) {
    return std::nullopt;
  }
  Info info;
  info.name = doc["name"].get<std::string>();
  info.revision = doc.value("revision", int64_t{0});
  info.size_bytes = doc.value("sizeBytes", int64_t{0});
  info.created = doc.value("created", "");
  return info;
}

}  // namespace apiserver::snapshots
