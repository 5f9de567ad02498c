// The version the simulated components report (kubelet, kube-proxy), the API's.
#pragma once

namespace cluster {

inline constexpr const char* kKubeletVersion = "v1.32.0";

}  // namespace cluster
