// The data directory: where a sandbox keeps its store, certificates, kubeconfig and snapshots.
//
// Chosen, first match wins: the --data-dir flag; $XDG_DATA_HOME/kube-sandbox (when
// XDG_DATA_HOME is an absolute path, as the XDG base directory spec asks); then
// $HOME/.local/share/kube-sandbox. Layout (docs/architecture.md):
//
//   <data-dir>/store/        the embedded store's LMDB files and its lock
//   <data-dir>/pki/          certificates and keys
//   <data-dir>/kubeconfig    the admin kubeconfig
//   <data-dir>/console.ini   the console's window layout
//   <data-dir>/snapshots/    store snapshots
//   <data-dir>/web-console   while serve runs: its web console's address
//
// Resolving never touches the file system; ensure_exists() creates the root (mode 0700, as it
// will hold private keys) and returns an error text instead of throwing.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "flags.h"

namespace sandbox {

// The --data-dir flag, for every command that works on the data directory.
FlagSpec data_dir_flag();

class DataDir {
 public:
  explicit DataDir(std::filesystem::path root) : root_(std::move(root)) {}

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path store_dir() const { return root_ / "store"; }
  std::filesystem::path pki_dir() const { return root_ / "pki"; }
  std::filesystem::path kubeconfig_file() const { return root_ / "kubeconfig"; }
  std::filesystem::path console_ini_file() const { return root_ / "console.ini"; }
  std::filesystem::path snapshots_dir() const { return root_ / "snapshots"; }
  std::filesystem::path web_console_file() const { return root_ / "web-console"; }

  // Creates the root (and parents) if missing. Returns an empty string on success, else a
  // one-line message naming the path and the cause.
  std::string ensure_exists() const;

  // What in the data directory others than its owner may read or enter: the root, store/,
  // pki/ and snapshots/ when not 0700 to others, and the store's files, private keys, the
  // tokens (admin, web console), the kubeconfig and snapshots when not 0600 (certificates are
  // public). One line per path, naming it and its mode; missing paths are skipped.
  std::vector<std::string> loose_permissions() const;

 private:
  std::filesystem::path root_;
};

// Looks up an environment variable; std::nullopt when unset. Tests inject their own.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup process_env();

// Picks the data directory from the flag value (empty = not given) and the environment. Fails
// when neither the flag nor XDG_DATA_HOME nor HOME gives one.
common::Result<DataDir> resolve_data_dir(const std::string& flag_value, const EnvLookup& env);

// The same, from parsed flags (the data_dir_flag()) and the process environment; an explicit but
// empty --data-dir fails too.
common::Result<DataDir> resolve_data_dir(const ParsedFlags& flags);

}  // namespace sandbox
