#include "webhook/resolve.h"

#include "common/base64.h"
#include "common/go_quote.h"
#include "common/https_url.h"

namespace apiserver::webhook {
namespace {

using nlohmann::json;

const json& member(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) {
    return kNull;
  }
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::string text(const json& j, const char* key) {
  const json& v = member(j, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

int integer(const json& j, const char* key, int fallback) {
  const json& v = member(j, key);
  if (v.is_number_integer()) {
    const auto n = v.get<int64_t>();
    if (n >= 0 && n <= 65535) {
      return static_cast<int>(n);
    }
  }
  return fallback;
}

std::string host_port(const std::string& host, const std::string& port) {
  return host.find(':') != std::string::npos ? "[" + host + "]:" + port : host + ":" + port;
}

std::string with_timeout(std::string path_and_query, int timeout_seconds) {
  path_and_query += path_and_query.find('?') == std::string::npos ? '?' : '&';
  return path_and_query + "timeout=" + std::to_string(timeout_seconds) + "s";
}

// The address and port an Endpoints object offers for the service port named `port_name`.
std::optional<std::pair<std::string, int>> from_endpoints(const json& endpoints,
                                                          const std::string& port_name) {
  const json& subsets = member(endpoints, "subsets");
  if (!subsets.is_array()) {
    return std::nullopt;
  }
  for (const auto& subset : subsets) {
    const json& addresses = member(subset, "addresses");
    const json& ports = member(subset, "ports");
    if (!addresses.is_array() || addresses.empty() || !ports.is_array()) {
      continue;
    }
    for (const auto& port : ports) {
      if (text(port, "name") == port_name && integer(port, "port", 0) > 0) {
        const std::string ip = text(addresses.front(), "ip");
        if (!ip.empty()) {
          return std::make_pair(ip, integer(port, "port", 0));
        }
      }
    }
  }
  return std::nullopt;
}

std::optional<std::pair<std::string, int>> from_slices(const std::vector<json>& slices,
                                                       const std::string& service,
                                                       const std::string& port_name) {
  for (const auto& slice : slices) {
    const json& labels = member(member(slice, "metadata"), "labels");
    if (text(labels, "kubernetes.io/service-name") != service) {
      continue;
    }
    const json& ports = member(slice, "ports");
    const json& endpoints = member(slice, "endpoints");
    if (!ports.is_array() || !endpoints.is_array()) {
      continue;
    }
    for (const auto& port : ports) {
      if (text(port, "name") != port_name || integer(port, "port", 0) <= 0) {
        continue;
      }
      for (const auto& endpoint : endpoints) {
        const json& ready = member(member(endpoint, "conditions"), "ready");
        const json& addresses = member(endpoint, "addresses");
        if ((ready.is_boolean() && !ready.get<bool>()) || !addresses.is_array() ||
            addresses.empty() || !addresses.front().is_string()) {
          continue;
        }
        return std::make_pair(addresses.front().get<std::string>(), integer(port, "port", 0));
      }
    }
  }
  return std::nullopt;
}

}  // namespace

ClientConfig client_config_from_json(const json& client_config) {
  ClientConfig config;
  config.url = text(client_config, "url");
  const json& service = member(client_config, "service");
  if (service.is_object()) {
    ServiceReference ref;
    ref.namespace_ = text(service, "namespace");
    ref.name = text(service, "name");
    ref.path = text(service, "path");
    ref.port = integer(service, "port", 443);
    config.service = std::move(ref);
  }
  const std::string bundle = text(client_config, "caBundle");
  if (!bundle.empty()) {
    config.ca_pem = common::base64_decode(bundle).value_or(std::string());
  }
  return config;
}

common::Result<Target> resolve(const ClientConfig& config, int timeout_seconds,
                               const Lookups& lookups) {
  Target target;
  target.ca_pem = config.ca_pem;
  if (!config.service) {
    auto parts = common::parse_https_url(config.url);
    if (!parts) {
      return common::Result<Target>::failure("parse " + common::go_quote(config.url) +
                                             ": invalid webhook URL");
    }
    target.connect_host = parts->host;
    target.connect_port = parts->port;
    target.server_name = parts->host;
    target.host_header = host_port(parts->host, parts->port);
    target.path_and_query = with_timeout(parts->target, timeout_seconds);
    const auto query = config.url.find('?');
    target.url = (query == std::string::npos ? config.url : config.url.substr(0, query)) +
                 target.path_and_query.substr(target.path_and_query.find('?'));
    return target;
  }
  auto resolved = resolve_service(
      *config.service,
      with_timeout(config.service->path.empty() ? "/" : config.service->path, timeout_seconds),
      lookups);
  if (!resolved) {
    const ServiceReference& ref = *config.service;
    return common::Result<Target>::failure(
        "Post \"https://" +
        host_port(ref.name + "." + ref.namespace_ + ".svc", std::to_string(ref.port)) +
        with_timeout(ref.path.empty() ? "/" : ref.path, timeout_seconds) +
        "\": " + resolved.error());
  }
  resolved->ca_pem = config.ca_pem;
  resolved->url = "https://" + resolved->host_header + resolved->path_and_query;
  return resolved;
}

common::Result<Target> resolve_service(const ServiceReference& ref,
                                       const std::string& path_and_query, const Lookups& lookups) {
  Target target;
  target.server_name = ref.name + "." + ref.namespace_ + ".svc";
  const std::string port = std::to_string(ref.port);
  target.host_header = host_port(target.server_name, port);
  target.path_and_query = path_and_query;
  const auto fail = [](const std::string& why) { return common::Result<Target>::failure(why); };
  auto service = lookups.get("", "services", ref.namespace_, ref.name);
  if (!service) {
    return fail("service \"" + ref.name + "\" not found");
  }
  const json& spec = member(*service, "spec");
  if (text(spec, "type") == "ExternalName") {
    target.connect_host = text(spec, "externalName");
    target.connect_port = port;
    target.url = "https://" + host_port(target.connect_host, port) + path_and_query;
    return target;
  }
  std::optional<std::string> port_name;
  const json& ports = member(spec, "ports");
  if (ports.is_array()) {
    for (const auto& p : ports) {
      if (integer(p, "port", 0) == ref.port) {
        port_name = text(p, "name");
        break;
      }
    }
  }
  if (!port_name) {
    return fail("no service port " + port + " found for service \"" + ref.name + "\"");
  }
  auto address = std::optional<std::pair<std::string, int>>();
  if (auto endpoints = lookups.get("", "endpoints", ref.namespace_, ref.name)) {
    address = from_endpoints(*endpoints, *port_name);
  }
  if (!address) {
    address = from_slices(lookups.list("discovery.k8s.io", "endpointslices", ref.namespace_),
                          ref.name, *port_name);
  }
  if (!address) {
    return fail("no endpoints available for service \"" + ref.name + "\"");
  }
  target.connect_host = address->first;
  target.connect_port = std::to_string(address->second);
  target.url = "https://" + host_port(target.connect_host, target.connect_port) + path_and_query;
  return target;
}

}  // namespace apiserver::webhook
