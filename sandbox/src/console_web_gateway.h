// `kube-sandbox console --web --kubeconfig FILE` for a cluster kube-sandbox does not serve: the
// web console served by this process on loopback, its API calls sent on to the kubeconfig
// context's API server with that context's credentials (apiserver/remote_cluster.h). It runs
// until SIGINT or SIGTERM; the login token is new each run.
#pragma once

#include <string>

#include "cli.h"

namespace sandbox {

int run_web_console_gateway(const std::string& kubeconfig, const ParsedFlags& flags,
                            CommandContext& ctx);

}  // namespace sandbox
