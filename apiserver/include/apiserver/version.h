// The version facts the API server reports (/version, `kube-sandbox version`).
#pragma once

#include <string>

namespace apiserver {

struct VersionInfo {
  std::string major;          // "1"
  std::string minor;          // "32"
  std::string git_version;    // e.g. "v1.32.0-sandbox.0.1.0": the served API, then our version
  std::string sandbox_version;  // kube-sandbox's own version, e.g. "0.1.0"
  std::string go_version;     // kube-apiserver reports its Go toolchain; we report our compiler
  std::string platform;       // "linux/amd64"
};

const VersionInfo& version_info();

// The served API line, "v1.32".
std::string api_version_line();

}  // namespace apiserver
