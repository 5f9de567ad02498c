// serve's flags for the cluster around the API server: --nodes, --controllers, the simulated
// containers' timing, kube-controller-manager's node monitoring periods and CSR signing.
#pragma once

#include <string>
#include <vector>

#include "apiserver/apiserver.h"
#include "apiserver/pki.h"
#include "cluster/cluster.h"
#include "common/result.h"
#include "flags.h"

namespace sandbox {

std::vector<FlagSpec> cluster_flags();

// The options the flags ask for; the error is a usage error's text.
common::Result<cluster::ClusterOptions> cluster_options(const ParsedFlags& flags);

// Which of the controllers the API server hosts (cluster::api_server_hosted()) the options name.
apiserver::InProcessControllers in_process_controllers(const cluster::ClusterOptions& options);

// Lets the csrsigning controller sign with the sandbox's CA (its certificate and key).
void add_certificate_signer(cluster::ClusterOptions& options, const apiserver::pki::Pki& pki);

}  // namespace sandbox
