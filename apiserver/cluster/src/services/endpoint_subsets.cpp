#include "services/endpoint_subsets.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "client/objects.h"
#include "services/service_pods.h"

namespace cluster {
namespace {

// One (address, port) pair before repacking; `port` null for a headless service without ports.
struct Entry {
  json address;
  json port;
  bool ready = false;
};

bool is_v6(const std::string& ip) {
  return ip.find(':') != std::string::npos;
}

// The pod's IP of the service's family: spec.ipFamilies[0], else the cluster IP's, else the pod's.
std::string pod_address(const json& service, const json& pod) {
  bool v6 = false;
  const json* families = at(service, {"spec", "ipFamilies"});
  if (families != nullptr && families->is_array() && !families->empty()) {
    v6 = (*families)[0] == "IPv6";
  } else if (service_ip_set(service)) {
    v6 = is_v6(string_at(service, {"spec", "clusterIP"}));
  } else {
    v6 = is_v6(string_at(pod, {"status", "podIP"}));
  }
  const json* ips = at(pod, {"status", "podIPs"});
  if (ips != nullptr && ips->is_array()) {
    for (const json& ip : *ips) {
      const std::string address = string_at(ip, {"ip"});
      if (!address.empty() && is_v6(address) == v6) {
        return address;
      }
    }
  }
  const std::string single = string_at(pod, {"status", "podIP"});
  return !single.empty() && is_v6(single) == v6 ? single : std::string();
}

std::string address_key(const json& address) {
  return string_at(address, {"ip"}) + "|" + string_at(address, {"targetRef", "uid"});
}

bool address_less(const json& a, const json& b) {
  const std::string ia = string_at(a, {"ip"}), ib = string_at(b, {"ip"});
  if (ia != ib) {
    return ia < ib;
  }
  return string_at(a, {"targetRef", "uid"}) < string_at(b, {"targetRef", "uid"});
}

json repack(const std::vector<Entry>& entries) {
  std::map<std::string, json> addresses;  // by address_key, the first seen
  const std::string kNoPort;              // the headless service's port-less entries
  std::map<std::string, json> ports;      // by dump
  std::map<std::string, std::map<std::string, bool>> ready_by_port;
  for (const Entry& e : entries) {
    const std::string key = address_key(e.address);
    addresses.emplace(key, e.address);
    const std::string port = e.port.is_null() ? kNoPort : e.port.dump();
    if (!e.port.is_null()) {
      ports.emplace(port, e.port);
    }
    auto& ready = ready_by_port[port];
    auto [it, inserted] = ready.emplace(key, e.ready);
    if (!inserted && it->second) {
      it->second = e.ready;  // not ready wins
    }
  }
  // Ports reaching the same addresses, in the same states, share a subset.
  struct Group {
    const std::map<std::string, bool>* addresses = nullptr;
    json ports = json::array();
  };
  std::map<std::string, Group> groups;
  for (const auto& [port, ready] : ready_by_port) {
    std::string signature;
    for (const auto& [key, is_ready] : ready) {
      signature += key + (is_ready ? "=1;" : "=0;");
    }
    Group& g = groups[signature];
    g.addresses = &ready;
    if (port != kNoPort) {
      g.ports.push_back(ports[port]);
    }
  }
  json subsets = json::array();
  for (auto& [signature, g] : groups) {
    std::vector<json> ready, not_ready;
    for (const auto& [key, is_ready] : *g.addresses) {
      (is_ready ? ready : not_ready).push_back(addresses[key]);
    }
    std::sort(ready.begin(), ready.end(), address_less);
    std::sort(not_ready.begin(), not_ready.end(), address_less);
    std::sort(g.ports.begin(), g.ports.end(), [](const json& a, const json& b) {
      return std::make_tuple(string_at(a, {"name"}), int_at(a, {"port"}, 0), a.dump()) <
             std::make_tuple(string_at(b, {"name"}), int_at(b, {"port"}, 0), b.dump());
    });
    json subset = json::object();
    if (!ready.empty()) {
      subset["addresses"] = ready;
    }
    if (!not_ready.empty()) {
      subset["notReadyAddresses"] = not_ready;
    }
    if (!g.ports.empty()) {
      subset["ports"] = g.ports;
    }
    subsets.push_back(std::move(subset));
  }
  std::sort(subsets.begin(), subsets.end(),
            [](const json& a, const json& b) { return a.dump() < b.dump(); });
  return subsets;
}

size_t count_of(const json& subset, const char* field) {
  const json* list = at(subset, {field});
  return list != nullptr && list->is_array() ? list->size() : 0;
}

size_t address_count(const json& subsets) {
  size_t n = 0;
  for (const json& s : subsets) {
    n += count_of(s, "addresses") + count_of(s, "notReadyAddresses");
  }
  return n;
}

// Subsets as compared: without the pods' resourceVersions in targetRefs, none for "no subsets".
json comparable(const json* subsets) {
  if (subsets == nullptr || !subsets->is_array()) {
    return json::array();
  }
  json copy = *subsets;
  for (json& subset : copy) {
    for (const char* field : {"addresses", "notReadyAddresses"}) {
      if (subset.contains(field) && subset[field].is_array()) {
        for (json& address : subset[field]) {
          if (address.contains("targetRef") && address["targetRef"].is_object()) {
            address["targetRef"].erase("resourceVersion");
          }
        }
      }
    }
  }
  return copy;
}

json labels_of(const json* object) {
  const json* labels = object != nullptr ? at(*object, {"metadata", "labels"}) : nullptr;
  return labels != nullptr && labels->is_object() ? *labels : json::object();
}

}  // namespace

json endpoint_subsets(const json& service, const std::vector<const json*>& pods) {
  const bool publish = bool_at(service, {"spec", "publishNotReadyAddresses"}, false);
  const json* service_ports = at(service, {"spec", "ports"});
  const bool has_ports =
      service_ports != nullptr && service_ports->is_array() && !service_ports->empty();
  const bool headless = string_at(service, {"spec", "clusterIP"}) == "None";
  std::vector<Entry> entries;
  for (const json* pod : pods) {
    if (!pod_in_endpoints(*pod, publish)) {
      continue;
    }
    const std::string ip = pod_address(service, *pod);
    if (ip.empty()) {
      continue;
    }
    json address = {{"ip", ip},
                    {"nodeName", string_at(*pod, {"spec", "nodeName"})},
                    {"targetRef",
                     {{"kind", "Pod"},
                      {"namespace", namespace_of(*pod)},
                      {"name", name_of(*pod)},
                      {"uid", uid_of(*pod)}}}};
    if (auto hostname = published_hostname(*pod, service)) {
      address["hostname"] = *hostname;
    }
    const bool ready = publish || pod_ready(*pod);
    if (!has_ports) {
      if (headless) {
        entries.push_back({address, nullptr, ready});
      }
      continue;
    }
    for (const json& sp : *service_ports) {
      auto number = find_port(*pod, sp);
      if (!number) {
        continue;
      }
      const std::string protocol = string_at(sp, {"protocol"});
      json port = {{"port", *number}, {"protocol", protocol.empty() ? "TCP" : protocol}};
      if (const std::string name = string_at(sp, {"name"}); !name.empty()) {
        port["name"] = name;
      }
      if (const json* app = at(sp, {"appProtocol"}); app != nullptr && app->is_string()) {
        port["appProtocol"] = *app;
      }
      entries.push_back({address, std::move(port), ready});
    }
  }
  return repack(entries);
}

bool truncate_subsets(json& subsets) {
  size_t ready = 0, not_ready = 0;
  for (const json& s : subsets) {
    ready += count_of(s, "addresses");
    not_ready += count_of(s, "notReadyAddresses");
  }
  if (ready + not_ready <= kMaxEndpointsAddresses) {
    return false;
  }
  // Too many ready addresses: cut those, drop every not ready one. Else cut the not ready ones.
  const bool cut_ready = ready > kMaxEndpointsAddresses;
  const size_t room = cut_ready ? kMaxEndpointsAddresses : kMaxEndpointsAddresses - ready;
  const size_t total = cut_ready ? ready : not_ready;
  size_t left = room;
  for (json& s : subsets) {
    const char* field = cut_ready ? "addresses" : "notReadyAddresses";
    const size_t here = count_of(s, field);
    // Each subset's share, rounded up; the last ones get what is left.
    auto share = static_cast<size_t>(std::ceil(
        static_cast<double>(here) / static_cast<double>(total) * static_cast<double>(room)));
    share = std::min(share, left);
    if (here > share) {
      json& list = s[field];
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(share), list.end());
    }
    left -= std::min(here, share);
    if (cut_ready) {
      s.erase("notReadyAddresses");
    }
    if (s.contains(field) && s[field].empty()) {
      s.erase(field);
    }
  }
  return true;
}

std::optional<json> endpoints_to_write(
    const json& service, const json* current, const json& subsets,
    const std::optional<std::chrono::system_clock::time_point>& trigger_time) {
  json compare_labels = labels_of(current);
  compare_labels.erase(kHeadlessLabel);
  const json service_labels = labels_of(&service);
  if (current != nullptr) {
    const json* now = at(*current, {"subsets"});
    const json* annotations = at(*current, {"metadata", "annotations"});
    const bool capacity_right = address_count(comparable(now)) <= kMaxEndpointsAddresses &&
                                (annotations == nullptr || !annotations->is_object() ||
                                 !annotations->contains(kOverCapacity));
    if (comparable(now) == comparable(&subsets) && compare_labels == service_labels &&
        capacity_right) {
      return std::nullopt;
    }
  }
  json endpoints =
      current != nullptr
          ? *current
          : json{{"apiVersion", "v1"},
                 {"kind", "Endpoints"},
                 {"metadata", {{"name", name_of(service)}, {"namespace", namespace_of(service)}}}};
  json written = subsets;
  json& metadata = endpoints["metadata"];
  json annotations = metadata.contains("annotations") && metadata["annotations"].is_object()
                         ? metadata["annotations"]
                         : json::object();
  if (trigger_time) {
    annotations[kLastChangeTriggerTime] = rfc3339(*trigger_time);
  } else {
    annotations.erase(kLastChangeTriggerTime);
  }
  if (truncate_subsets(written)) {
    annotations[kOverCapacity] = "truncated";
  } else {
    annotations.erase(kOverCapacity);
  }
  if (written.empty()) {
    endpoints.erase("subsets");
  } else {
    endpoints["subsets"] = std::move(written);
  }
  json labels = service_labels;
  if (!service_ip_set(service)) {
    labels[kHeadlessLabel] = "";
  } else {
    labels.erase(kHeadlessLabel);
  }
  for (auto [field, value] :
       {std::pair{"labels", &labels}, std::pair{"annotations", &annotations}}) {
    if (value->empty()) {
      metadata.erase(field);
    } else {
      metadata[field] = *value;
    }
  }
  return endpoints;
}

}  // namespace cluster
