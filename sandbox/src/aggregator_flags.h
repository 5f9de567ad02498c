// serve's aggregation-layer flags, as kube-apiserver's: --proxy-client-cert-file,
// --proxy-client-key-file, --requestheader-client-ca-file, --requestheader-allowed-names,
// --requestheader-username-headers, --requestheader-group-headers,
// --requestheader-extra-headers-prefix and --enable-aggregator-routing. Without them the data
// directory's front-proxy CA and client certificate (CN front-proxy-client) are used.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "apiserver/apiserver.h"
#include "apiserver/pki.h"
#include "common/result.h"
#include "flags.h"

namespace sandbox {

std::vector<FlagSpec> aggregator_flags();

// What is wrong with the flags themselves (checked before anything is written), or nullopt.
std::optional<std::string> check_aggregator_flags(const ParsedFlags& flags);

// Reads a file a flag names (the error names the flag), and splits a comma-separated list.
using ReadFlagFile =
    std::function<common::Result<std::string>(const std::filesystem::path&, const std::string&)>;
using SplitList = std::function<std::vector<std::string>(const std::string&)>;

// The aggregation settings the flags ask for; `client_ca_pem` is what the server trusts for
// client certificates (published as client-ca-file). The error is a usage error's text.
common::Result<apiserver::AggregationConfig> aggregation_config(const ParsedFlags& flags,
                                                                const apiserver::pki::Pki& pki,
                                                                const std::string& client_ca_pem,
                                                                const ReadFlagFile& read,
                                                                const SplitList& split);

}  // namespace sandbox
