#include "aggregator/availability.h"

#include <nlohmann/json.hpp>

#include "registry/json_access.h"

namespace apiserver::aggregator {
namespace {

using nlohmann::json;
using registry::string_at;
using registry::value_at;

bool has_address_for(const json& endpoints, const std::string& port_name) {
  const json& subsets = value_at(endpoints, {"subsets"});
  if (!subsets.is_array()) {
    return false;
  }
  for (const json& subset : subsets) {
    const json& addresses = value_at(subset, {"addresses"});
    const json& ports = value_at(subset, {"ports"});
    if (!addresses.is_array() || addresses.empty() || !ports.is_array()) {
      continue;
    }
    for (const json& port : ports) {
      if (string_at(port, {"name"}) == port_name) {
        return true;
      }
    }
  }
  return false;
}

bool slices_have_address_for(const std::vector<json>& slices, const std::string& service,
                             const std::string& port_name) {
  for (const json& slice : slices) {
    if (string_at(value_at(value_at(slice, {"metadata"}), {"labels"}),
                  {"kubernetes.io/service-name"}) != service) {
      continue;
    }
    const json& endpoints = value_at(slice, {"endpoints"});
    const json& ports = value_at(slice, {"ports"});
    if (!endpoints.is_array() || !ports.is_array()) {
      continue;
    }
    bool ready = false;
    for (const json& e : endpoints) {
      const json& r = value_at(value_at(e, {"conditions"}), {"ready"});
      const json& addresses = value_at(e, {"addresses"});
      ready = ready ||
              (!(r.is_boolean() && !r.get<bool>()) && addresses.is_array() && !addresses.empty());
    }
    for (const json& port : ports) {
      if (ready && string_at(port, {"name"}) == port_name) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

std::optional<Condition> check_service(const ApiService& s, const webhook::Lookups& lookups) {
  const webhook::ServiceReference& ref = *s.service;
  const std::string where = "service/" + ref.name + " in \"" + ref.namespace_ + "\"";
  auto service = lookups.get("", "services", ref.namespace_, ref.name);
  if (!service) {
    return Condition{"False", "ServiceNotFound", where + " is not present"};
  }
  const json& spec = value_at(*service, {"spec"});
  const std::string type = string_at(spec, {"type"});
  if (!type.empty() && type != "ClusterIP") {
    return std::nullopt;
  }
  std::optional<std::string> port_name;
  const json& ports = value_at(spec, {"ports"});
  if (ports.is_array()) {
    for (const json& p : ports) {
      const json& number = value_at(p, {"port"});
      if (number.is_number_integer() && number.get<int64_t>() == ref.port) {
        port_name = string_at(p, {"name"});
        break;
      }
    }
  }
  if (!port_name) {
    return Condition{"False", "ServicePortError",
                     where + " is not listening on port " + std::to_string(ref.port)};
  }
  auto endpoints = lookups.get("", "endpoints", ref.namespace_, ref.name);
  if (!endpoints) {
    auto slices = lookups.list("discovery.k8s.io", "endpointslices", ref.namespace_);
    if (slices_have_address_for(slices, ref.name, *port_name)) {
      return std::nullopt;
    }
    return Condition{
        "False", "EndpointsNotFound",
        "cannot find endpoints for service/" + ref.name + " in \"" + ref.namespace_ + "\""};
  }
  if (!has_address_for(*endpoints, *port_name)) {
    return Condition{
        "False", "MissingEndpoints",
        "endpoints for " + where + " have no addresses with port name \"" + *port_name + "\""};
  }
  return std::nullopt;
}

std::string discovery_path(const ApiService& s) {
  if (s.name == "v1.") {
    return "/api/" + s.version;
  }
  return "/apis/" + s.group + "/" + s.version;
}

Condition discovery_condition(const std::string& url, const std::string& error, int status) {
  if (!error.empty()) {
    return {"False", "FailedDiscoveryCheck",
            "failing or missing response from " + url + ": " + error};
  }
  if (status < 200 || status >= 300) {
    return {"False", "FailedDiscoveryCheck",
            "failing or missing response from " + url + ": bad status from " + url + ": " +
                std::to_string(status)};
  }
  return passed_condition();
}

}  // namespace apiserver::aggregator
