// Shared by the sandbox/ command-line tests: running the CLI in-process and a scratch directory.
#pragma once

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "../temp_dir.h"
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
class TempDir : public testing_support::TempDir {
 public:
  TempDir() : testing_support::TempDir("ks-cli-test") {}
};

}  // namespace cli_test
