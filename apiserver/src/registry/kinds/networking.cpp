// networking.k8s.io: Ingresses (validation and printer), IngressClasses, NetworkPolicies
// (defaults and printer), IPAddresses and ServiceCIDRs.
#include "registry/kinds/kinds.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "registry/defaulting_fields.h"
#include "registry/go_text.h"
#include "registry/name_scanners.h"
#include "registry/print_cells.h"
#include "registry/table.h"
#include "registry/validation_rules.h"

namespace apiserver::registry::kinds {

namespace {

namespace validate {
using namespace rules;

void validate_ingress_backend(const json& backend, const std::string& path, Errors& out) {
  const bool has_resource = !get(backend, "resource").is_null();
  const json& service = get(backend, "service");
  if (has_resource && !service.is_null()) {
    out.push_back(invalid_value(path, "", "cannot set both resource and service backends"));
    return;
  }
  if (has_resource) {
    return;
  }
  if (service.is_null()) {
    out.push_back(invalid_value(path, "", "resource or service backend is required"));
    return;
  }
  const std::string name = str(service, "name");
  if (name.empty()) {
    out.push_back(required_value(path + ".service.name", ""));
  } else {
    for (const auto& msg : name_problems(name, NameRule::Dns1035Label, false)) {
      out.push_back(invalid_value(path + ".service.name", name, msg));
    }
  }
  const json& port = get(service, "port");
  const std::string port_name = str(port, "name");
  const json& number = get(port, "number");
  const bool has_number = number.is_number_integer() && number.get<int64_t>() != 0;
  if (!port_name.empty() && has_number) {
    out.push_back(invalid_value(path, "", "cannot set both port name & port number"));
  } else if (!port_name.empty()) {
    for (const auto& msg : port_name_problems(port_name)) {
      out.push_back(invalid_value(path + ".service.port.name", port_name, msg));
    }
  } else if (has_number) {
    validate_port_number(number, path + ".service.port.number", out);
  } else {
    out.push_back(required_value(path, "port name or number is required"));
  }
}

void validate_ingress(const json& obj, Errors& out) {
  const json& spec = get(obj, "spec");
  const json& rules = get(spec, "rules");
  const json& fallback = get(spec, "defaultBackend");
  const size_t n = rules.is_array() ? rules.size() : 0;
  if (n == 0 && fallback.is_null()) {
    out.push_back(invalid_rendered(
        "spec", rules.is_array() ? "[]networking.IngressRule{}" : "[]networking.IngressRule(nil)",
        "either `defaultBackend` or `rules` must be specified"));
  }
  if (!fallback.is_null()) {
    validate_ingress_backend(fallback, "spec.defaultBackend", out);
  }
  static const std::vector<std::string> kPathTypes = {"Exact", "ImplementationSpecific", "Prefix"};
  for (size_t i = 0; i < n; ++i) {
    const std::string rp = index("spec.rules", i);
    const std::string host = str(rules[i], "host");
    if (!host.empty() && host.find('*') == std::string::npos) {
      for (const auto& msg : name_problems(host, NameRule::Dns1123Subdomain, false)) {
        out.push_back(invalid_value(rp + ".host", host, msg));
      }
    }
    const json& http = get(rules[i], "http");
    if (http.is_null()) {
      continue;
    }
    const json& paths = get(http, "paths");
    if (!paths.is_array() || paths.empty()) {
      out.push_back(required_value(rp + ".http.paths", ""));
      continue;
    }
    for (size_t k = 0; k < paths.size(); ++k) {
      const std::string pp = index(rp + ".http.paths", k);
      const json& type = get(paths[k], "pathType");
      if (!type.is_string()) {
        out.push_back(required_value(pp + ".pathType", "pathType must be specified"));
        continue;
      }
      const std::string path_type = type.get<std::string>();
      const std::string path = str(paths[k], "path");
      if (path_type == "Exact" || path_type == "Prefix") {
        if (path.empty() || path[0] != '/') {
          out.push_back(invalid_value(pp + ".path", path, "must be an absolute path"));
        }
      } else if (path_type == "ImplementationSpecific") {
        if (!path.empty() && path[0] != '/') {
          out.push_back(invalid_value(pp + ".path", path, "must be an absolute path"));
        }
      } else {
        out.push_back(not_supported(pp + ".pathType", go_quote(path_type), kPathTypes));
      }
      validate_ingress_backend(get(paths[k], "backend"), pp + ".backend", out);
    }
  }
  const json& class_name = get(spec, "ingressClassName");
  if (class_name.is_string()) {
    for (const auto& msg :
         name_problems(class_name.get<std::string>(), NameRule::Dns1123Subdomain, false)) {
      out.push_back(invalid_value("spec.ingressClassName", class_name.get<std::string>(), msg));
    }
  }
}

}  // namespace validate

namespace print {
using namespace cells;

json print_ingress(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  const json& cls = at(spec, "ingressClassName");
  // formatHosts: the first 3 non-empty hosts of the first 3 rules; N counts all rules past 3.
  constexpr size_t kMax = 3;
  const auto& rules = arr(at(spec, "rules"));
  std::vector<std::string> hosts;
  bool more = false;
  for (const auto& rule : rules) {
    if (hosts.size() == kMax) {
      more = true;
    }
    if (!more && !str(at(rule, "host")).empty()) {
      hosts.push_back(str(at(rule, "host")));
    }
  }
  std::string host_text = "*";
  if (!hosts.empty()) {
    host_text = join(hosts, ",");
    if (more) {
      host_text += " + " + int_text(static_cast<int64_t>(rules.size() - kMax)) + " more...";
    }
  }
  const std::string ports = arr(at(spec, "tls")).empty() ? "80" : "80, 443";
  return json::array({name_of(obj), cls.is_string() ? str(cls) : "<none>", host_text,
                      load_balancer_text(at(obj, "status", "loadBalancer")), ports, age(obj, c)});
}

json print_ingress_class(const json& obj, const Context& c) {
  const json& params = at(obj, "spec", "parameters");
  std::string parameters = "<none>";
  if (params.is_object()) {
    parameters = str(at(params, "kind"));
    if (at(params, "apiGroup").is_string()) {
      parameters += "." + str(at(params, "apiGroup"));
    }
    parameters += "/" + str(at(params, "name"));
  }
  return json::array({name_of(obj), str(at(obj, "spec", "controller")), parameters, age(obj, c)});
}

json print_network_policy(const json& obj, const Context& c) {
  // spec.podSelector is a struct upstream, never nil: absent reads as {} (everything).
  const json& sel = at(obj, "spec", "podSelector");
  return json::array(
      {name_of(obj), format_label_selector(sel.is_null() ? json::object() : sel), age(obj, c)});
}

json print_ip_address(const json& obj, const Context& c) {
  std::string parent = "<none>";
  if (const json& ref = at(obj, "spec", "parentRef"); ref.is_object()) {
    const std::string group = str(at(ref, "group"));
    const std::string resource = str(at(ref, "resource"));
    parent = lower(group.empty() ? resource : resource + "." + group);
    if (!str(at(ref, "namespace")).empty()) {
      parent += "/" + str(at(ref, "namespace"));
    }
    parent += "/" + str(at(ref, "name"));
  }
  // Upstream's printer emits an Age cell that its two column definitions do not declare.
  return json::array({name_of(obj), parent, age(obj, c)});
}

}  // namespace print

namespace defaulting {
using namespace fields;

void default_network_policy(json& np) {
  json* spec = object_at(np, "spec");
  if (spec == nullptr) {
    return;
  }
  for (const char* direction : {"ingress", "egress"}) {
    for_each_object(*spec, direction, [](json& rule) {
      for_each_object(rule, "ports", [](json& port) { default_value(port, "protocol", "TCP"); });
    });
  }
  if (unset(*spec, "policyTypes") || array_size(*spec, "policyTypes") == 0) {
    json types = json::array({"Ingress"});
    if (array_size(*spec, "egress") > 0) {
      types.push_back("Egress");
    }
    (*spec)["policyTypes"] = types;
  }
}

}  // namespace defaulting

}  // namespace

void add_networking(Strategies& s) {
  constexpr std::string_view kGroup = "networking.k8s.io";
  s.push_back({.group = kGroup,
               .kind = "Ingress",
               .validate = validate::validate_ingress,
               .print = print::print_ingress});
  s.push_back({.group = kGroup, .kind = "IngressClass", .print = print::print_ingress_class});
  s.push_back(
      {.group = kGroup,
       .kind = "NetworkPolicy",
       .defaults = [](json& o, const DefaultingContext&) { defaulting::default_network_policy(o); },
       .print = print::print_network_policy});
  s.push_back({.group = kGroup, .kind = "IPAddress", .print = print::print_ip_address});
  s.push_back({.group = kGroup,
               .kind = "ServiceCIDR",
               .print = [](const json& obj, const cells::Context& c) {
                 using namespace cells;
                 std::vector<std::string> cidrs;
                 for (const auto& x : arr(at(obj, "spec", "cidrs"))) {
                   cidrs.push_back(str(x));
                 }
                 return json::array({name_of(obj), join(cidrs, ","), age(obj, c)});
               }});
}

}  // namespace apiserver::registry::kinds
