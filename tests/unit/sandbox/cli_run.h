// Shared by the sandbox/ command-line tests: running the CLI in-process and a scratch directory.
#pragma once

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli.h"

namespace cli_test {

struct Run {
  int code;
  std::string out;
  std::string err;
};

// `kube-sandbox ARGS...` with its output captured.
inline Run run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = sandbox::run_cli(args, out, err);
  return {code, out.str(), err.str()};
}

// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "ks-cli-test-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace cli_test
