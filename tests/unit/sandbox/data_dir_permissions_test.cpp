// The data directory holds Secrets (the store) and keys: serve warns about every part of it that
// others than its owner may read.
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "data_dir.h"

namespace {

namespace fs = std::filesystem;

struct TempRoot {
  fs::path path;
  TempRoot() {
    std::string pattern = (fs::temp_directory_path() / "ks-perms-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~TempRoot() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void make_file(const fs::path& path, mode_t mode) {
  std::ofstream(path) << "x";
  REQUIRE(::chmod(path.c_str(), mode) == 0);
}

void make_dir(const fs::path& path, mode_t mode) {
  fs::create_directories(path);
  REQUIRE(::chmod(path.c_str(), mode) == 0);
}

}  // namespace

TEST_CASE("a data directory kept to its owner has nothing to warn about", "[data-dir]") {
  TempRoot temp;
  sandbox::DataDir data(temp.path / "data");
  make_dir(data.root(), 0700);
  make_dir(data.store_dir(), 0700);
  make_file(data.store_dir() / "data.mdb", 0600);
  make_file(data.store_dir() / "LOCK", 0644);
  make_dir(data.pki_dir(), 0700);
  make_file(data.pki_dir() / "ca.crt", 0644);
  make_file(data.pki_dir() / "ca.key", 0600);
  make_file(data.kubeconfig_file(), 0600);
  CHECK(data.loose_permissions().empty());
}

TEST_CASE("every loose part of the data directory is named with its mode", "[data-dir]") {
  TempRoot temp;
  sandbox::DataDir data(temp.path / "data");
  make_dir(data.root(), 0755);
  make_dir(data.store_dir(), 0750);
  make_file(data.store_dir() / "data.mdb", 0640);
  make_dir(data.pki_dir(), 0700);
  make_file(data.pki_dir() / "ca.crt", 0644);
  make_file(data.pki_dir() / "admin.key", 0604);
  make_file(data.pki_dir() / "admin.token", 0660);
  make_dir(data.snapshots_dir(), 0700);
  make_file(data.snapshots_dir() / "before.snap", 0644);
  make_file(data.kubeconfig_file(), 0644);
  auto lines = data.loose_permissions();
  std::sort(lines.begin(), lines.end());
  const std::string root = data.root().string();
  std::vector<std::string> expected = {
      root + " has mode 0755: it holds Secrets or keys and should be 0700",
      root + "/kubeconfig has mode 0644: it holds Secrets or keys and should be 0600",
      root + "/pki/admin.key has mode 0604: it holds Secrets or keys and should be 0600",
      root + "/pki/admin.token has mode 0660: it holds Secrets or keys and should be 0600",
      root + "/snapshots/before.snap has mode 0644: it holds Secrets or keys and should be 0600",
      root + "/store has mode 0750: it holds Secrets or keys and should be 0700",
      root + "/store/data.mdb has mode 0640: it holds Secrets or keys and should be 0600",
  };
  std::sort(expected.begin(), expected.end());
  CHECK(lines == expected);
}

TEST_CASE("a data directory that does not exist yet has nothing to warn about", "[data-dir]") {
  TempRoot temp;
  CHECK(sandbox::DataDir(temp.path / "absent").loose_permissions().empty());
}
