// Services, Endpoints and EndpointSlices: defaults (ports, IP families, session affinity),
// validation of types, ports and cluster IPs, and their printers.
#include "registry/kinds/kinds.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "registry/defaulting_fields.h"
#include "registry/generic/write_hooks.h"
#include "registry/go_text.h"
#include "registry/print_cells.h"
#include "registry/service_ips.h"
#include "registry/table.h"
#include "registry/validation_rules.h"

namespace apiserver::registry::kinds {

namespace {

namespace validate {
using namespace rules;

const std::vector<std::string> kServiceTypes = {"ClusterIP", "ExternalName", "LoadBalancer",
                                                "NodePort"};

void validate_service(const json& obj, Errors& out) {
  const json& spec = get(obj, "spec");
  const std::string type = str(spec, "type").empty() ? "ClusterIP" : str(spec, "type");
  const bool headless = str(spec, "clusterIP") == "None";
  const json& ports = get(spec, "ports");
  const size_t n = ports.is_array() ? ports.size() : 0;
  if (n == 0 && !headless && type != "ExternalName") {
    out.push_back(required_value("spec.ports", ""));
  }
  if (std::find(kServiceTypes.begin(), kServiceTypes.end(), type) == kServiceTypes.end()) {
    out.push_back(not_supported("spec.type", go_quote(type), kServiceTypes));
  }
  if (type == "ExternalName") {
    std::string external = str(spec, "externalName");
    if (!external.empty() && external.back() == '.') {
      external.pop_back();
    }
    if (external.empty()) {
      out.push_back(required_value("spec.externalName", ""));
    } else {
      for (const auto& msg : name_problems(external, NameRule::Dns1123Subdomain, false)) {
        out.push_back(invalid_value("spec.externalName", external, msg));
      }
    }
  }
  std::set<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    const json& port = ports[i];
    const std::string p = index("spec.ports", i);
    const std::string name = str(port, "name");
    if (n > 1 && name.empty()) {
      out.push_back(required_value(p + ".name", ""));
    } else if (!name.empty()) {
      for (const auto& msg : name_problems(name, NameRule::Dns1123Label, false)) {
        out.push_back(invalid_value(p + ".name", name, msg));
      }
      if (!names.insert(name).second) {
        out.push_back(duplicate(p + ".name", go_quote(name)));
      }
    }
    validate_port_number(get(port, "port"), p + ".port", out);
    validate_protocol(port, p + ".protocol", out);
    const json& target = get(port, "targetPort");
    if (target.is_number_integer()) {
      validate_port_number(target, p + ".targetPort", out);
    } else if (target.is_string()) {
      for (const auto& msg : port_name_problems(target.get<std::string>())) {
        out.push_back(invalid_value(p + ".targetPort", target.get<std::string>(), msg));
      }
    }
    const json& node_port = get(port, "nodePort");
    if (type == "ClusterIP" && node_port.is_number_integer() && node_port.get<int64_t>() != 0) {
      out.push_back(forbidden(p + ".nodePort", "may not be used when `type` is 'ClusterIP'"));
    }
  }
  validate_labels(get(spec, "selector"), "spec.selector", out);
}

std::vector<std::string> cluster_ips(const json& spec) {
  std::vector<std::string> ips;
  const json& list = get(spec, "clusterIPs");
  if (list.is_array()) {
    for (const auto& ip : list) {
      ips.push_back(ip.is_string() ? ip.get<std::string>() : std::string());
    }
  } else if (!str(spec, "clusterIP").empty()) {
    ips.push_back(str(spec, "clusterIP"));
  }
  return ips;
}

void validate_service_update(const json& obj, const json& old, Errors& out) {
  const json& spec = get(obj, "spec");
  const json& old_spec = get(old, "spec");
  if (str(spec, "type") == "ExternalName" || str(old_spec, "type") == "ExternalName") {
    return;
  }
  const auto now = cluster_ips(spec);
  const auto before = cluster_ips(old_spec);
  // An empty clusterIP on update is filled from the stored object before validation.
  if (!now.empty() && !before.empty() && now[0] != before[0]) {
    std::string rendered = "[]string{";
    for (size_t i = 0; i < now.size(); ++i) {
      rendered += (i ? ", " : "") + go_quote(now[i]);
    }
    out.push_back(
        invalid_rendered("spec.clusterIPs[0]", rendered + "}", "may not change once set"));
  }
}

}  // namespace validate

namespace print {
using namespace cells;

std::string service_external_ip(const json& svc) {
  const json& spec = at(svc, "spec");
  std::vector<std::string> external;
  for (const auto& ip : arr(at(spec, "externalIPs"))) {
    external.push_back(str(ip));
  }
  const std::string type = str(at(spec, "type"));
  if (type == "ClusterIP" || type == "NodePort") {
    return external.empty() ? "<none>" : join(external, ",");
  }
  if (type == "LoadBalancer") {
    const std::string lb = load_balancer_text(at(svc, "status", "loadBalancer"));
    if (!external.empty()) {
      std::vector<std::string> results;
      if (!lb.empty()) {
        size_t start = 0;
        while (true) {
          const auto comma = lb.find(',', start);
          results.push_back(lb.substr(start, comma - start));
          if (comma == std::string::npos) {
            break;
          }
          start = comma + 1;
        }
      }
      results.insert(results.end(), external.begin(), external.end());
      return join(results, ",");
    }
    return lb.empty() ? "<pending>" : lb;
  }
  if (type == "ExternalName") {
    return str(at(spec, "externalName"));
  }
  return "<unknown>";
}

json print_service(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  std::string cluster_ip = "<none>";
  if (const auto& ips = arr(at(spec, "clusterIPs")); !ips.empty()) {
    cluster_ip = str(ips[0]);
  }
  std::vector<std::string> ports;
  for (const auto& p : arr(at(spec, "ports"))) {
    const int64_t node_port = integer(at(p, "nodePort"));
    std::string piece = int_text(integer(at(p, "port")));
    if (node_port > 0) {
      piece += ":" + int_text(node_port);
    }
    ports.push_back(piece + "/" + str(at(p, "protocol")));
  }
  std::string port_text = join(ports, ",");
  return json::array({name_of(obj), str(at(spec, "type")), cluster_ip, service_external_ip(obj),
                      port_text.empty() ? "<none>" : port_text, age(obj, c),
                      format_labels(at(spec, "selector"))});
}

// net.JoinHostPort: IPv6 literals get brackets.
std::string host_port(const std::string& host, int64_t port) {
  if (host.find(':') != std::string::npos) {
    return "[" + host + "]:" + int_text(port);
  }
  return host + ":" + int_text(port);
}

std::string format_endpoints(const json& ep) {
  const auto& subsets = arr(at(ep, "subsets"));
  if (subsets.empty()) {
    return "<none>";
  }
  constexpr size_t kMax = 3;
  std::vector<std::string> list;
  bool more = false;
  int64_t count = 0;
  for (const auto& ss : subsets) {
    const auto& addresses = arr(at(ss, "addresses"));
    const auto& ports = arr(at(ss, "ports"));
    if (ports.empty()) {
      count += static_cast<int64_t>(addresses.size());
      for (const auto& a : addresses) {
        if (list.size() == kMax) {
          more = true;
          break;
        }
        list.push_back(str(at(a, "ip")));
      }
      continue;
    }
    for (const auto& p : ports) {
      count += static_cast<int64_t>(addresses.size());
      for (const auto& a : addresses) {
        if (list.size() == kMax) {
          more = true;
          break;
        }
        list.push_back(host_port(str(at(a, "ip")), integer(at(p, "port"))));
      }
    }
  }
  auto text = join(list, ",");
  if (more) {
    return text + " + " + int_text(count - static_cast<int64_t>(kMax)) + " more...";
  }
  return text;
}

json print_endpoints(const json& obj, const Context& c) {
  return json::array({name_of(obj), format_endpoints(obj), age(obj, c)});
}

json print_endpoint_slice(const json& obj, const Context& c) {
  std::vector<std::string> ports;
  for (const auto& p : arr(at(obj, "ports"))) {
    if (at(p, "port").is_number()) {
      ports.push_back(int_text(integer(at(p, "port"))));
    } else if (at(p, "name").is_string()) {
      ports.push_back(str(at(p, "name")));
    } else {
      ports.push_back("*");
    }
  }
  std::vector<std::string> addresses;
  for (const auto& e : arr(at(obj, "endpoints"))) {
    for (const auto& a : arr(at(e, "addresses"))) {
      addresses.push_back(str(a));
    }
  }
  return json::array({name_of(obj), str(at(obj, "addressType")), list_with_more(ports),
                      list_with_more(addresses), age(obj, c)});
}

}  // namespace print

namespace defaulting {
using namespace fields;

void default_service(json& svc, const DefaultingContext& ctx) {
  json* spec = object_at(svc, "spec");
  if (spec == nullptr) {
    return;
  }
  default_string(*spec, "sessionAffinity", "None");
  std::string affinity = string_at(*spec, "sessionAffinity");
  if (affinity == "None") {
    spec->erase("sessionAffinityConfig");
  } else if (affinity == "ClientIP") {
    json* config = existing_object(*spec, "sessionAffinityConfig");
    json* client_ip = config ? existing_object(*config, "clientIP") : nullptr;
    if (client_ip == nullptr || unset(*client_ip, "timeoutSeconds")) {
      (*spec)["sessionAffinityConfig"] = {{"clientIP", {{"timeoutSeconds", 10800}}}};
    }
  }
  default_string(*spec, "type", "ClusterIP");
  std::string type = string_at(*spec, "type");
  for_each_object(*spec, "ports", [](json& port) {
    default_string(port, "protocol", "TCP");
    auto target = port.find("targetPort");
    bool zero = target == port.end() || target->is_null() ||
                (target->is_number_integer() && target->get<long long>() == 0) ||
                (target->is_string() && target->get_ref<const std::string&>().empty());
    if (zero && port.contains("port")) {
      port["targetPort"] = port["port"];
    }
  });
  bool external_ips = array_size(*spec, "externalIPs") > 0;
  bool externally_accessible =
      type == "NodePort" || type == "LoadBalancer" || (type == "ClusterIP" && external_ips);
  if (externally_accessible) {
    default_string(*spec, "externalTrafficPolicy", "Cluster");
  }
  if (type == "NodePort" || type == "LoadBalancer" || type == "ClusterIP") {
    default_value(*spec, "internalTrafficPolicy", "Cluster");
  }
  if (type == "LoadBalancer") {
    default_value(*spec, "allocateLoadBalancerNodePorts", true);
    if (json* status = existing_object(svc, "status")) {
      if (json* lb = existing_object(*status, "loadBalancer")) {
        for_each_object(*lb, "ingress", [](json& ing) {
          if (!empty_string(ing, "ip")) {
            default_value(ing, "ipMode", "VIP");
          }
        });
      }
    }
  }
  if (ctx.phase != DefaultingPhase::Decode && type != "ExternalName") {
    // The registry's IP-family initialisation, for an IPv4 single-stack cluster.
    if (unset(*spec, "ipFamilyPolicy")) {
      size_t ips = array_size(*spec, "clusterIPs");
      size_t families = array_size(*spec, "ipFamilies");
      bool headless = string_at(*spec, "clusterIP") == "None";
      if (ips == 2 || families == 2 || (headless && empty_map(*spec, "selector"))) {
        (*spec)["ipFamilyPolicy"] = "RequireDualStack";
      } else {
        (*spec)["ipFamilyPolicy"] = "SingleStack";
      }
    }
    if (unset(*spec, "ipFamilies") || array_size(*spec, "ipFamilies") == 0) {
      (*spec)["ipFamilies"] = json::array({"IPv4"});
    }
  }
  if (ctx.phase == DefaultingPhase::Create) {
    svc["status"] = {{"loadBalancer", json::object()}};
  } else {
    default_value(svc, "status", {{"loadBalancer", json::object()}});
  }
}

void default_endpoints(json& ep) {
  for_each_object(ep, "subsets", [](json& subset) {
    for_each_object(subset, "ports", [](json& port) { default_string(port, "protocol", "TCP"); });
  });
}

void default_endpoint_slice(json& slice) {
  for_each_object(slice, "ports", [](json& port) {
    default_value(port, "name", "");
    default_value(port, "protocol", "TCP");
  });
}

}  // namespace defaulting

// A service's cluster IPs and node ports, taken when it is created, changed with it and freed
// when it goes, as the Service registry does around the generic store.
class ServiceAllocation final : public WriteHooks {
 public:
  explicit ServiceAllocation(const WriteHooksOptions& options)
      : ips_(ServiceIpOptions{.service_cidr = options.service_cidr}) {}
  void load(const std::vector<json>& stored) override { ips_.rebuild(stored); }
  Errors begin_create(json& service) override { return ips_.allocate_service(service); }
  void abort_create(const json& service) override { ips_.release_service(service); }
  Errors begin_update(const json& old, json& updated) override {
    return ips_.update_service(old, updated);
  }
  void after_delete(const json& service) override { ips_.release_service(service); }

 private:
  ServiceIpAllocator ips_;
};

}  // namespace

void add_services(Strategies& s) {
  s.push_back({.group = "",
               .kind = "Service",
               .defaults = defaulting::default_service,
               .validate = validate::validate_service,
               .validate_update = validate::validate_service_update,
               .print = print::print_service,
               .make_write_hooks = [](const WriteHooksOptions& options) {
                 return std::unique_ptr<WriteHooks>(std::make_unique<ServiceAllocation>(options));
               }});
  s.push_back(
      {.group = "",
       .kind = "Endpoints",
       .defaults = [](json& o, const DefaultingContext&) { defaulting::default_endpoints(o); },
       .print = print::print_endpoints});
  s.push_back(
      {.group = "discovery.k8s.io",
       .kind = "EndpointSlice",
       .defaults = [](json& o, const DefaultingContext&) { defaulting::default_endpoint_slice(o); },
       .print = print::print_endpoint_slice});
}

}  // namespace apiserver::registry::kinds
