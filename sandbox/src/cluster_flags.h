// serve's flags for the cluster around the API server: --nodes, --controllers, the simulated
// containers' timing and kube-controller-manager's node monitoring periods.
#pragma once

#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "common/result.h"
#include "flags.h"

namespace sandbox {

std::vector<FlagSpec> cluster_flags();

// The options the flags ask for; the error is a usage error's text.
common::Result<cluster::ClusterOptions> cluster_options(const ParsedFlags& flags);

}  // namespace sandbox
