#include "registry/service_ips.h"

#include <arpa/inet.h>

#include <charconv>
#include <map>
#include <set>
#include <stdexcept>

namespace apiserver::registry {
namespace {

using nlohmann::json;

std::optional<uint32_t> parse_ipv4(const std::string& text) {
  in_addr addr{};
  if (inet_pton(AF_INET, text.c_str(), &addr) != 1) {
    return std::nullopt;
  }
  return ntohl(addr.s_addr);
}

// min(max(min, size/step), max), 0 for ranges no larger than min (upstream's band formula).
size_t lower_band(size_t size, size_t min, size_t max, size_t step) {
  if (size <= min) {
    return 0;
  }
  size_t offset = size / step;
  return offset < min ? min : (offset > max ? max : offset);
}

const json* spec_of(const json& service) {
  auto it = service.find("spec");
  return it != service.end() && it->is_object() ? &*it : nullptr;
}

std::string str(const json& parent, const char* key) {
  auto it = parent.find(key);
  return it != parent.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int integer(const json& parent, const char* key) {
  auto it = parent.find(key);
  return it != parent.end() && it->is_number_integer() ? it->get<int>() : 0;
}

bool needs_cluster_ip(const json& spec) {
  return str(spec, "type") != "ExternalName" && str(spec, "clusterIP") != "None";
}

bool has_node_ports(const json& spec) {
  std::string type = str(spec, "type");
  return type == "NodePort" || type == "LoadBalancer";
}

// Whether ports without a nodePort get one (LoadBalancers may opt out).
bool allocates_node_ports(const json& spec) {
  if (str(spec, "type") == "NodePort") {
    return true;
  }
  if (str(spec, "type") != "LoadBalancer") {
    return false;
  }
  auto it = spec.find("allocateLoadBalancerNodePorts");
  return it == spec.end() || !it->is_boolean() || it->get<bool>();
}

bool needs_health_check(const json& spec) {
  return str(spec, "type") == "LoadBalancer" && str(spec, "externalTrafficPolicy") == "Local";
}

// The cluster IPs a service asks for: clusterIPs, else clusterIP (the strategy normalises the
// two before allocating).
std::vector<std::string> requested_ips(const json& spec) {
  std::vector<std::string> ips;
  auto it = spec.find("clusterIPs");
  if (it != spec.end() && it->is_array() && !it->empty()) {
    for (const auto& ip : *it) {
      ips.push_back(ip.is_string() ? ip.get<std::string>() : std::string());
    }
  } else if (!str(spec, "clusterIP").empty()) {
    ips.push_back(str(spec, "clusterIP"));
  }
  return ips;
}

// Go's %#v of a []string.
std::string render_string_slice(const std::vector<std::string>& values) {
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i ? ", " : "") + go_quote(values[i]);
  }
  return out + "}";
}

std::set<int> node_ports_of(const json& spec) {
  std::set<int> ports;
  auto it = spec.find("ports");
  if (it != spec.end() && it->is_array()) {
    for (const auto& p : *it) {
      if (p.is_object() && integer(p, "nodePort") != 0) {
        ports.insert(integer(p, "nodePort"));
      }
    }
  }
  return ports;
}

// An IPv4 CIDR of a usable size, as kube-apiserver checks --service-cluster-ip-range: at most
// 20 bits of addresses, and at least two besides the network and broadcast ones.
struct Cidr {
  uint32_t network = 0;
  int prefix = 0;
};
common::Result<Cidr> parse_cidr(const std::string& text) {
  const size_t slash = text.find('/');
  std::optional<uint32_t> network;
  int prefix = -1;
  if (slash != std::string::npos) {
    network = parse_ipv4(text.substr(0, slash));
    const std::string_view digits = std::string_view(text).substr(slash + 1);
    const auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), prefix);
    if (parsed.ec != std::errc() || parsed.ptr != digits.data() + digits.size() || digits.empty() ||
        prefix > 32) {
      prefix = -1;
    }
  }
  if (!network || prefix < 0) {
    return common::Result<Cidr>::failure("--service-cluster-ip-range " + text +
                                         " is not a valid IPv4 CIDR");
  }
  if (prefix < 12) {
    return common::Result<Cidr>::failure(
        "specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be "
        ">= 12");
  }
  if (prefix > 30) {
    return common::Result<Cidr>::failure("specified --service-cluster-ip-range " + text +
                                         " is too small; the mask must be <= 30");
  }
  return Cidr{*network, prefix};
}

FieldError internal_error(const std::string& message) {
  return {"InternalError", "", message};
}

}  // namespace

ServiceIpAllocator::ServiceIpAllocator(ServiceIpOptions options) : options_(std::move(options)) {
  auto cidr = parse_cidr(options_.service_cidr);
  if (!cidr) {
    throw std::invalid_argument(cidr.error());
  }
  const int prefix = cidr->prefix;
  uint32_t mask = prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
  uint32_t net = cidr->network & mask;
  size_t size = size_t{1} << (32 - prefix);
  base_ = net + 1;
  // The network and broadcast addresses are never handed out.
  ips_.used.assign(size - 2, false);
  ips_.offset = lower_band(size, 16, 256, 16);
  in_addr addr{};
  addr.s_addr = htonl(net);
  char text[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &addr, text, sizeof text);
  cidr_text_ = std::string(text) + "/" + std::to_string(prefix);

  if (options_.node_port_size <= 0 || options_.node_port_base <= 0 ||
      options_.node_port_base + options_.node_port_size > 65536) {
    throw std::invalid_argument("invalid node port range");
  }
  ports_.used.assign(static_cast<size_t>(options_.node_port_size), false);
  ports_.offset = lower_band(static_cast<size_t>(options_.node_port_size), 16, 128, 32);
  rng_.seed(options_.seed != 0 ? options_.seed : std::random_device{}());
}

common::Result<std::string> ServiceIpAllocator::first_address(const std::string& cidr) {
  auto parsed = parse_cidr(cidr);
  if (!parsed) {
    return common::Result<std::string>::failure(parsed.error());
  }
  const uint32_t mask = ~uint32_t{0} << (32 - parsed->prefix);
  in_addr addr{};
  addr.s_addr = htonl((parsed->network & mask) + 1);
  char text[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &addr, text, sizeof text);
  return std::string(text);
}

std::optional<size_t> ServiceIpAllocator::next_free_locked(Bitmap& bitmap, std::mt19937_64& rng) {
  size_t max = bitmap.used.size();
  if (bitmap.count >= max) {
    return std::nullopt;
  }
  // Upper band first, from a random start, then the lower band the same way.
  auto scan = [&](size_t from, size_t to) -> std::optional<size_t> {
    if (to <= from) {
      return std::nullopt;
    }
    size_t width = to - from;
    size_t start = std::uniform_int_distribution<size_t>(0, width - 1)(rng);
    for (size_t i = 0; i < width; ++i) {
      size_t at = from + (start + i) % width;
      if (!bitmap.used[at]) {
        return at;
      }
    }
    return std::nullopt;
  };
  auto found = scan(bitmap.offset, max);
  if (!found) {
    found = scan(0, bitmap.offset);
  }
  if (found) {
    bitmap.used[*found] = true;
    ++bitmap.count;
  }
  return found;
}

std::optional<size_t> ServiceIpAllocator::ip_index(const std::string& ip) const {
  auto value = parse_ipv4(ip);
  if (!value || *value < base_ || *value - base_ >= ips_.used.size()) {
    return std::nullopt;
  }
  return *value - base_;
}

std::string ServiceIpAllocator::index_ip(size_t index) const {
  in_addr addr{};
  addr.s_addr = htonl(base_ + static_cast<uint32_t>(index));
  char text[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &addr, text, sizeof text);
  return text;
}

std::optional<std::string> ServiceIpAllocator::allocate_next_ip() {
  std::lock_guard lock(mu_);
  auto index = next_free_locked(ips_, rng_);
  if (!index) {
    return std::nullopt;
  }
  return index_ip(*index);
}

std::string ServiceIpAllocator::allocate_ip_locked(const std::string& ip) {
  auto index = ip_index(ip);
  if (!index) {
    return "the provided IP (" + ip + ") is not in the valid range. The range of valid IPs is " +
           cidr_text_;
  }
  if (ips_.used[*index]) {
    return "provided IP is already allocated";
  }
  ips_.used[*index] = true;
  ++ips_.count;
  return "";
}

std::string ServiceIpAllocator::allocate_ip(const std::string& ip) {
  std::lock_guard lock(mu_);
  return allocate_ip_locked(ip);
}

void ServiceIpAllocator::release_ip(const std::string& ip) {
  std::lock_guard lock(mu_);
  if (auto index = ip_index(ip); index && ips_.used[*index]) {
    ips_.used[*index] = false;
    --ips_.count;
  }
}

bool ServiceIpAllocator::ip_allocated(const std::string& ip) const {
  std::lock_guard lock(mu_);
  auto index = ip_index(ip);
  return index && ips_.used[*index];
}

std::optional<int> ServiceIpAllocator::allocate_next_node_port() {
  std::lock_guard lock(mu_);
  auto index = next_free_locked(ports_, rng_);
  if (!index) {
    return std::nullopt;
  }
  return options_.node_port_base + static_cast<int>(*index);
}

std::string ServiceIpAllocator::allocate_node_port_locked(int port) {
  if (port < options_.node_port_base || port >= options_.node_port_base + options_.node_port_size) {
    return "provided port is not in the valid range. The range of valid ports is " +
           std::to_string(options_.node_port_base) + "-" +
           std::to_string(options_.node_port_base + options_.node_port_size - 1);
  }
  size_t index = static_cast<size_t>(port - options_.node_port_base);
  if (ports_.used[index]) {
    return "provided port is already allocated";
  }
  ports_.used[index] = true;
  ++ports_.count;
  return "";
}

std::string ServiceIpAllocator::allocate_node_port(int port) {
  std::lock_guard lock(mu_);
  return allocate_node_port_locked(port);
}

void ServiceIpAllocator::release_node_port(int port) {
  std::lock_guard lock(mu_);
  if (port >= options_.node_port_base && port < options_.node_port_base + options_.node_port_size) {
    size_t index = static_cast<size_t>(port - options_.node_port_base);
    if (ports_.used[index]) {
      ports_.used[index] = false;
      --ports_.count;
    }
  }
}

bool ServiceIpAllocator::node_port_allocated(int port) const {
  std::lock_guard lock(mu_);
  if (port < options_.node_port_base || port >= options_.node_port_base + options_.node_port_size) {
    return false;
  }
  return ports_.used[static_cast<size_t>(port - options_.node_port_base)];
}

size_t ServiceIpAllocator::allocated_ip_count() const {
  std::lock_guard lock(mu_);
  return ips_.count;
}

size_t ServiceIpAllocator::allocated_node_port_count() const {
  std::lock_guard lock(mu_);
  return ports_.count;
}

std::vector<FieldError> ServiceIpAllocator::allocate_service(nlohmann::json& service) {
  std::lock_guard lock(mu_);
  return allocate_service_locked(service);
}

std::vector<FieldError> ServiceIpAllocator::allocate_service_locked(nlohmann::json& service) {
  if (!service.is_object() || !service.contains("spec") || !service["spec"].is_object()) {
    return {};
  }
  json& spec = service["spec"];
  std::vector<std::string> taken_ips;
  std::vector<int> taken_ports;
  auto undo = [&] {
    for (const auto& ip : taken_ips) {
      auto index = ip_index(ip);
      ips_.used[*index] = false;
      --ips_.count;
    }
    for (int port : taken_ports) {
      ports_.used[static_cast<size_t>(port - options_.node_port_base)] = false;
      --ports_.count;
    }
  };

  if (needs_cluster_ip(spec)) {
    std::vector<std::string> ips = requested_ips(spec);
    if (ips.empty()) {
      auto index = next_free_locked(ips_, rng_);
      if (!index) {
        return {internal_error("failed to allocate a serviceIP: range is full")};
      }
      std::string ip = index_ip(*index);
      taken_ips.push_back(ip);
      spec["clusterIP"] = ip;
      spec["clusterIPs"] = json::array({ip});
    } else {
      // Single-stack IPv4: only the first family is allocated here.
      std::string reason = allocate_ip_locked(ips[0]);
      if (!reason.empty()) {
        return {invalid_rendered("spec.clusterIPs", render_string_slice(ips),
                                 "failed to allocate IP " + ips[0] + ": " + reason)};
      }
      taken_ips.push_back(ips[0]);
      spec["clusterIP"] = ips[0];
      spec["clusterIPs"] = json::array({ips[0]});
    }
  } else if (str(spec, "clusterIP") == "None") {
    spec["clusterIPs"] = json::array({"None"});
  }

  if (has_node_ports(spec) && spec.contains("ports") && spec["ports"].is_array()) {
    json& ports = spec["ports"];
    bool allocate_new = allocates_node_ports(spec);
    std::map<int, int> by_service_port;  // service port -> node port given to it
    for (size_t i = 0; i < ports.size(); ++i) {
      json& port = ports[i];
      if (!port.is_object()) {
        continue;
      }
      int requested = integer(port, "nodePort");
      if (requested == 0 && !allocate_new) {
        continue;
      }
      int service_port = integer(port, "port");
      auto shared = by_service_port.find(service_port);
      if (shared != by_service_port.end()) {
        if (requested == 0 || requested == shared->second) {
          port["nodePort"] = shared->second;
          continue;
        }
      }
      if (requested == 0) {
        // A later port with the same number may carry the user's choice.
        for (size_t j = i + 1; j < ports.size(); ++j) {
          if (ports[j].is_object() && integer(ports[j], "port") == service_port &&
              integer(ports[j], "nodePort") != 0) {
            requested = integer(ports[j], "nodePort");
            break;
          }
        }
      }
      if (requested != 0) {
        std::string reason = allocate_node_port_locked(requested);
        if (!reason.empty()) {
          undo();
          return {invalid_rendered("spec.ports[" + std::to_string(i) + "].nodePort",
                                   std::to_string(requested), reason)};
        }
        taken_ports.push_back(requested);
        port["nodePort"] = requested;
      } else {
        auto index = next_free_locked(ports_, rng_);
        if (!index) {
          undo();
          return {internal_error("failed to allocate a nodePort: range is full")};
        }
        int allocated = options_.node_port_base + static_cast<int>(*index);
        taken_ports.push_back(allocated);
        port["nodePort"] = allocated;
      }
      by_service_port[service_port] = port["nodePort"].get<int>();
    }
  }

  if (needs_health_check(spec)) {
    int requested = integer(spec, "healthCheckNodePort");
    if (requested != 0) {
      std::string reason = allocate_node_port_locked(requested);
      if (!reason.empty()) {
        undo();
        return {internal_error("failed to allocate requested HealthCheck NodePort " +
                               std::to_string(requested) + ": " + reason)};
      }
      taken_ports.push_back(requested);
    } else {
      auto index = next_free_locked(ports_, rng_);
      if (!index) {
        undo();
        return {internal_error("failed to allocate a HealthCheck NodePort 0: range is full")};
      }
      int allocated = options_.node_port_base + static_cast<int>(*index);
      taken_ports.push_back(allocated);
      spec["healthCheckNodePort"] = allocated;
    }
  }
  return {};
}

std::vector<FieldError> ServiceIpAllocator::update_service(const nlohmann::json& old_service,
                                                           nlohmann::json& service) {
  const json* old_spec = spec_of(old_service);
  if (old_spec == nullptr || !service.is_object() || !service.contains("spec") ||
      !service["spec"].is_object()) {
    return allocate_service(service);
  }
  json& spec = service["spec"];

  // Keep what the stored object already holds when the new one omits it.
  if (needs_cluster_ip(spec) && needs_cluster_ip(*old_spec) && requested_ips(spec).empty()) {
    auto old_ips = requested_ips(*old_spec);
    if (!old_ips.empty()) {
      spec["clusterIP"] = old_ips[0];
      auto old_list = old_spec->find("clusterIPs");
      spec["clusterIPs"] = old_list != old_spec->end() && old_list->is_array()
                               ? *old_list
                               : json::array({old_ips[0]});
    }
  }
  if (has_node_ports(spec) && has_node_ports(*old_spec) && spec.contains("ports") &&
      spec["ports"].is_array()) {
    std::set<int> used_by_both;
    std::set<int> new_ports = node_ports_of(spec);
    for (int p : node_ports_of(*old_spec)) {
      if (new_ports.count(p)) {
        used_by_both.insert(p);
      }
    }
    std::map<std::string, int> by_name;
    if (old_spec->contains("ports") && old_spec->at("ports").is_array()) {
      for (const auto& p : old_spec->at("ports")) {
        if (p.is_object()) {
          by_name[str(p, "name")] = integer(p, "nodePort");
        }
      }
    }
    for (auto& p : spec["ports"]) {
      if (p.is_object() && integer(p, "nodePort") == 0) {
        auto it = by_name.find(str(p, "name"));
        if (it != by_name.end() && it->second != 0 && !used_by_both.count(it->second)) {
          p["nodePort"] = it->second;
        }
      }
    }
  }
  if (needs_health_check(spec) && needs_health_check(*old_spec) &&
      integer(spec, "healthCheckNodePort") == 0 && integer(*old_spec, "healthCheckNodePort") != 0) {
    spec["healthCheckNodePort"] = integer(*old_spec, "healthCheckNodePort");
  }

  // Allocate the new object's set as if it were new, with the old one's values released, and
  // put the old ones back if that fails; one critical section, so nobody sees the gap.
  std::lock_guard lock(mu_);
  release_service_locked(old_service);
  std::vector<FieldError> errors = allocate_service_locked(service);
  if (!errors.empty()) {
    mark_service_locked(old_service);
  }
  return errors;
}

void ServiceIpAllocator::release_service_locked(const nlohmann::json& service) {
  const json* spec = spec_of(service);
  if (spec == nullptr) {
    return;
  }
  if (needs_cluster_ip(*spec)) {
    for (const auto& ip : requested_ips(*spec)) {
      if (auto index = ip_index(ip); index && ips_.used[*index]) {
        ips_.used[*index] = false;
        --ips_.count;
      }
    }
  }
  std::set<int> ports = node_ports_of(*spec);
  if (integer(*spec, "healthCheckNodePort") != 0) {
    ports.insert(integer(*spec, "healthCheckNodePort"));
  }
  for (int port : ports) {
    if (port >= options_.node_port_base &&
        port < options_.node_port_base + options_.node_port_size) {
      size_t index = static_cast<size_t>(port - options_.node_port_base);
      if (ports_.used[index]) {
        ports_.used[index] = false;
        --ports_.count;
      }
    }
  }
}

void ServiceIpAllocator::release_service(const nlohmann::json& service) {
  std::lock_guard lock(mu_);
  release_service_locked(service);
}

void ServiceIpAllocator::mark_service_locked(const nlohmann::json& service) {
  const json* spec = spec_of(service);
  if (spec == nullptr) {
    return;
  }
  if (needs_cluster_ip(*spec)) {
    for (const auto& ip : requested_ips(*spec)) {
      allocate_ip_locked(ip);  // duplicates and strays are ignored
    }
  }
  std::set<int> ports = node_ports_of(*spec);
  if (integer(*spec, "healthCheckNodePort") != 0) {
    ports.insert(integer(*spec, "healthCheckNodePort"));
  }
  for (int port : ports) {
    allocate_node_port_locked(port);
  }
}

void ServiceIpAllocator::rebuild(const std::vector<nlohmann::json>& services) {
  std::lock_guard lock(mu_);
  ips_.used.assign(ips_.used.size(), false);
  ips_.count = 0;
  ports_.used.assign(ports_.used.size(), false);
  ports_.count = 0;
  for (const auto& service : services) {
    mark_service_locked(service);
  }
}

}  // namespace apiserver::registry
