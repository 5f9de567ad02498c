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

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) {
      return std::nullopt;
    }
    return std::string(value);
  };
}

std::optional<DataDir> resolve_data_dir(const std::string& flag_value, const EnvLookup& env,
                                        std::string& error) {
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
  error = "no data directory: pass --data-dir, or set XDG_DATA_HOME or HOME";
  return std::nullopt;
}

std::optional<DataDir> resolve_data_dir(const ParsedFlags& flags, std::string& error) {
  // An explicit but empty --data-dir is a mistake, not a request for the default.
  if (flags.has("data-dir") && flags.get("data-dir").empty()) {
    error = "flag --data-dir needs a non-empty value";
    return std::nullopt;
  }
  return resolve_data_dir(flags.get("data-dir"), process_env(), error);
}

}  // namespace sandbox
