#include "data_dir.h"

#include <cstdlib>
#include <system_error>

namespace sandbox {

FlagSpec data_dir_flag() {
  return {"data-dir", "", true, "DIR",
          "data directory (default $XDG_DATA_HOME/kube-sandbox or ~/.local/share/kube-sandbox)"};
}

std::string DataDir::ensure_exists() const {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(root_, ec)) {
    return "";
  }
  if (!fs::create_directories(root_, ec) && ec) {
    return "cannot create the data directory " + root_.string() + ": " + ec.message();
  }
  fs::permissions(root_, fs::perms::owner_all, fs::perm_options::replace, ec);
  if (ec) {
    return "cannot set the permissions of " + root_.string() + ": " + ec.message();
  }
  return "";
}

namespace {

// "0755": permission bits as chmod takes them.
std::string mode_text(std::filesystem::perms perms) {
  auto bits = static_cast<unsigned>(perms) & 07777u;
  std::string out = "0";
  for (int shift = 6; shift >= 0; shift -= 3) {
    out += static_cast<char>('0' + ((bits >> shift) & 7u));
  }
  return out;
}

// Appends a line when `path` exists with any group or other bit set.
void check_private(const std::filesystem::path& path, bool directory,
                   std::vector<std::string>& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    return;
  }
  constexpr auto kOthers = fs::perms::group_all | fs::perms::others_all;
  if ((status.permissions() & kOthers) == fs::perms::none) {
    return;
  }
  out.push_back(path.string() + " has mode " + mode_text(status.permissions()) +
                ": it holds Secrets or keys and should be " + (directory ? "0700" : "0600"));
}

}  // namespace

std::vector<std::string> DataDir::loose_permissions() const {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  check_private(root_, true, out);
  for (const auto& dir : {store_dir(), pki_dir(), snapshots_dir()}) {
    check_private(dir, true, out);
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const auto& path = it->path();
      std::error_code type_ec;
      if (!it->is_regular_file(type_ec)) {
        continue;
      }
      // The store's LOCK file and the PKI's .lock only serialise processes; certificates
      // are public.
      bool secret = dir == pki_dir() ? path.extension() == ".key" || path.extension() == ".token"
                                     : path.filename() != "LOCK";
      if (secret) {
        check_private(path, false, out);
      }
    }
  }
  check_private(kubeconfig_file(), false, out);
  return out;
}

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) {
      return std::nullopt;
    }
    return std::string(value);
  };
}

common::Result<DataDir> resolve_data_dir(const std::string& flag_value, const EnvLookup& env) {
  if (!flag_value.empty()) {
    return DataDir(flag_value);
  }
  // The XDG spec says an unset, empty or relative XDG_DATA_HOME is ignored.
  if (auto xdg = env("XDG_DATA_HOME"); xdg && !xdg->empty() && (*xdg)[0] == '/') {
    return DataDir(std::filesystem::path(*xdg) / "kube-sandbox");
  }
  if (auto home = env("HOME"); home && !home->empty()) {
    return DataDir(std::filesystem::path(*home) / ".local" / "share" / "kube-sandbox");
  }
  return std::string("no data directory: pass --data-dir, or set XDG_DATA_HOME or HOME");
}

common::Result<DataDir> resolve_data_dir(const ParsedFlags& flags) {
  // An explicit but empty --data-dir is a mistake, not a request for the default.
  if (flags.has("data-dir") && flags.get("data-dir").empty()) {
    return std::string("flag --data-dir needs a non-empty value");
  }
  return resolve_data_dir(flags.get("data-dir"), process_env());
}

}  // namespace sandbox
