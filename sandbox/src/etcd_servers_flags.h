// serve's kube-apiserver flags for an external etcd cluster as the store: --etcd-servers,
// --etcd-cafile, --etcd-certfile, --etcd-keyfile and --etcd-prefix.
#pragma once

#include <optional>
#include <vector>

#include "common/result.h"
#include "etcdwire/client.h"
#include "flags.h"

namespace sandbox {

std::vector<FlagSpec> etcd_servers_flags();

// The client options for the cluster --etcd-servers names (files read), nothing without it, or
// the usage error.
common::Result<std::optional<etcdwire::ClientOptions>> etcd_servers_options(
    const ParsedFlags& flags);

}  // namespace sandbox
