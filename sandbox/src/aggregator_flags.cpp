#include "aggregator_flags.h"

namespace sandbox {

std::vector<FlagSpec> aggregator_flags() {
  return {
      {"proxy-client-cert-file", "", true, "FILE",
       "client certificate the aggregation layer presents to extension API servers (default: "
       "the data directory's front-proxy-client.crt)"},
      {"proxy-client-key-file", "", true, "FILE", "the key of --proxy-client-cert-file"},
      {"requestheader-client-ca-file", "", true, "FILE",
       "CA that signs the front-proxy client certificate, published for extension API servers "
       "(default: the data directory's front-proxy-ca.crt)"},
      {"requestheader-allowed-names", "", true, "NAMES",
       "common names extension API servers accept on the front-proxy certificate (default "
       "front-proxy-client)"},
      {"requestheader-username-headers", "", true, "NAMES",
       "published user name headers (default X-Remote-User)"},
      {"requestheader-group-headers", "", true, "NAMES",
       "published group headers (default X-Remote-Group)"},
      {"requestheader-extra-headers-prefix", "", true, "PREFIXES",
       "published extra header prefixes (default X-Remote-Extra-)"},
      {"enable-aggregator-routing", "", false, "",
       "route to extension API servers by endpoint address (always on: there is no ClusterIP "
       "routing here; =false is refused)"},
  };
}

std::optional<std::string> check_aggregator_flags(const ParsedFlags& flags) {
  if (flags.has("proxy-client-cert-file") != flags.has("proxy-client-key-file")) {
    return "--proxy-client-cert-file and --proxy-client-key-file must be given together";
  }
  const auto routing = flags.all("enable-aggregator-routing");
  if (!routing.empty() && routing.back() == "false") {
    return "--enable-aggregator-routing=false is not supported: extension API servers are "
           "reached by their endpoint addresses (there is no ClusterIP routing)";
  }
  return std::nullopt;
}

common::Result<apiserver::AggregationConfig> aggregation_config(const ParsedFlags& flags,
                                                                const apiserver::pki::Pki& pki,
                                                                const std::string& client_ca_pem,
                                                                const ReadFlagFile& read,
                                                                const SplitList& split) {
  using Failure = common::Result<apiserver::AggregationConfig>;
  apiserver::AggregationConfig config;
  config.client_ca_pem = client_ca_pem;
  config.proxy_client_cert_pem = pki.front_proxy_client_cert_pem;
  config.proxy_client_key_pem = pki.front_proxy_client_key_pem;
  config.requestheader_client_ca_pem = pki.front_proxy_ca_cert_pem;
  config.requestheader_allowed_names = {apiserver::pki::kFrontProxyClientCommonName};
  if (flags.has("proxy-client-cert-file")) {
    auto pair = apiserver::pki::load_key_pair(flags.get("proxy-client-cert-file"),
                                              flags.get("proxy-client-key-file"));
    if (!pair) {
      return Failure::failure(pair.error());
    }
    config.proxy_client_cert_pem = pair->cert_pem;
    config.proxy_client_key_pem = pair->key_pem;
  }
  if (flags.has("requestheader-client-ca-file")) {
    auto ca = read(flags.get("requestheader-client-ca-file"), "--requestheader-client-ca-file");
    if (!ca) {
      return Failure::failure(ca.error());
    }
    config.requestheader_client_ca_pem = *ca;
  }
  for (auto [flag, target] :
       {std::pair{"requestheader-allowed-names", &config.requestheader_allowed_names},
        std::pair{"requestheader-username-headers", &config.requestheader_username_headers},
        std::pair{"requestheader-group-headers", &config.requestheader_group_headers},
        std::pair{"requestheader-extra-headers-prefix",
                  &config.requestheader_extra_headers_prefix}}) {
    if (flags.has(flag)) {
      *target = split(flags.get(flag));
    }
  }
  return config;
}

}  // namespace sandbox
