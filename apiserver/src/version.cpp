#include "apiserver/version.h"

namespace apiserver {
namespace {

std::string platform() {
#if defined(__x86_64__)
  const char* arch = "amd64";
#elif defined(__aarch64__)
  const char* arch = "arm64";
#else
  const char* arch = "unknown";
#endif
  return std::string("linux/") + arch;
}

VersionInfo make_version_info() {
  VersionInfo v;
  std::string k8s = KS_KUBERNETES_VERSION;  // "v1.32.0"
  auto first_dot = k8s.find('.');
  auto second_dot = k8s.find('.', first_dot + 1);
  v.major = k8s.substr(1, first_dot - 1);
  v.minor = k8s.substr(first_dot + 1, second_dot - first_dot - 1);
  v.sandbox_version = KS_SANDBOX_VERSION;
  v.git_version = k8s + "-sandbox." + v.sandbox_version;
  v.go_version = std::string("gcc ") + __VERSION__;
  v.platform = platform();
  return v;
}

}  // namespace

const VersionInfo& version_info() {
  static const VersionInfo info = make_version_info();
  return info;
}

std::string api_version_line() {
  return "v" + version_info().major + "." + version_info().minor;
}

}  // namespace apiserver
