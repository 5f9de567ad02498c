// A webhook's clientConfig (admissionregistration's WebhookClientConfig; CRD conversion has the
// same shape) and how kube-sandbox turns it into an address to dial.
//
// A `url` is dialled as written. A `service` is resolved the way kube-apiserver does with
// --enable-aggregator-routing (there is no kube-proxy to route a ClusterIP here): an
// ExternalName Service goes to its externalName; any other Service to one ready address of its
// Endpoints (or, when there are none, of its EndpointSlices) and the target port of the service
// port named by `port` (default 443). The server's certificate is checked against
// `<name>.<namespace>.svc` in both cases. A webhook server run on this machine is thus reached by
// `url: https://127.0.0.1:PORT/path`, by a selector-less Service with a hand-written Endpoints
// (or EndpointSlice) pointing at 127.0.0.1, or by an ExternalName Service naming localhost.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "webhook/client.h"

namespace apiserver::webhook {

struct ServiceReference {
  std::string namespace_;
  std::string name;
  std::string path;  // "" or starting with '/'
  int port = 443;
};

struct ClientConfig {
  std::string url;  // set, or service is
  std::optional<ServiceReference> service;
  std::string ca_pem;  // the decoded caBundle
};

// From a clientConfig as stored (caBundle base64). Unreadable members are left empty.
ClientConfig client_config_from_json(const nlohmann::json& client_config);

// How resolution reads the cluster: the stored object of a built-in resource, or every object of
// it in a namespace (core: group "").
struct Lookups {
  std::function<std::optional<nlohmann::json>(const std::string& group, const std::string& resource,
                                              const std::string& ns, const std::string& name)>
      get;
  std::function<std::vector<nlohmann::json>(const std::string& group, const std::string& resource,
                                            const std::string& ns)>
      list;
};

// The target of a call with timeout `timeout_seconds` (it goes into the URL's query, as
// upstream sends it). The error reads as a failed call would, the resolver's words after the
// URL: `Post "https://hook.ns.svc:443/?timeout=10s": service "hook" not found`, or
// `...: no endpoints available for service "hook"`.
common::Result<Target> resolve(const ClientConfig& config, int timeout_seconds,
                               const Lookups& lookups);

// A service's address, by the same rules, for a request to `path_and_query`: the target's `url`
// names the address dialled (https://<endpoint address>:<port><path>, as kube-apiserver's
// endpoint routing resolves it), its server_name is `<name>.<namespace>.svc`; ca_pem and the
// client certificate are left for the caller. The error is the resolver's words alone:
// `service "api" not found`, `no service port 443 found for service "api"`,
// `no endpoints available for service "api"`.
common::Result<Target> resolve_service(const ServiceReference& service,
                                       const std::string& path_and_query, const Lookups& lookups);

}  // namespace apiserver::webhook
