#include "services/slice_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include "client/objects.h"
#include "services/service_pods.h"

namespace cluster {
namespace {

bool reserved_label(const std::string& key) {
  return key == kServiceNameLabel || key == kManagedByLabel || key == kHeadlessLabel;
}

json array_at(const json& object, const char* field) {
  const json* value = at(object, {field});
  return value != nullptr && value->is_array() ? *value : json::array();
}

// Ports in a canonical order: slices with the same ports, in whatever order, share a key.
std::string port_key(const json& ports) {
  std::vector<std::string> each;
  for (const json& port : ports) {
    each.push_back(port.dump());
  }
  std::sort(each.begin(), each.end());
  std::string key;
  for (const std::string& p : each) {
    key += p + "\n";
  }
  return key;
}

// Who an endpoint is (its addresses, hostname and pod); the rest (conditions, node, zone) is
// what may change about it.
std::string endpoint_id(const json& endpoint) {
  std::vector<std::string> addresses;
  for (const json& a : array_at(endpoint, "addresses")) {
    addresses.push_back(a.is_string() ? a.get<std::string>() : a.dump());
  }
  std::sort(addresses.begin(), addresses.end());
  std::string id;
  for (const std::string& a : addresses) {
    id += a + ",";
  }
  return id + "|" + string_at(endpoint, {"hostname"}) + "|" +
         string_at(endpoint, {"targetRef", "namespace"}) + "/" +
         string_at(endpoint, {"targetRef", "name"});
}

bool owned_by(const json& slice, const json& service) {
  const json* metadata = at(slice, {"metadata"});
  for (const json& ref :
       array_at(metadata != nullptr ? *metadata : json::object(), "ownerReferences")) {
    if (string_at(ref, {"uid"}) == uid_of(service) && string_at(ref, {"kind"}) == "Service" &&
        string_at(ref, {"apiVersion"}) == "v1") {
      return true;
    }
  }
  return false;
}

json new_slice(const json& service, const json& ports, const std::string& address_type) {
  json slice = {{"apiVersion", "discovery.k8s.io/v1"},
                {"kind", "EndpointSlice"},
                {"metadata",
                 {{"generateName", name_of(service) + "-"},
                  {"namespace", namespace_of(service)},
                  {"ownerReferences", json::array({{{"apiVersion", "v1"},
                                                    {"kind", "Service"},
                                                    {"name", name_of(service)},
                                                    {"uid", uid_of(service)},
                                                    {"controller", true},
                                                    {"blockOwnerDeletion", true}}})}}},
                {"addressType", address_type},
                {"endpoints", json::array()},
                {"ports", ports}};
  slice["metadata"]["labels"] = slice_labels(slice, service);
  return slice;
}

// The empty slice a service without endpoints keeps, compared as upstream does: namespace,
// labels, address type, and no endpoints nor ports.
bool same_placeholder(const json& a, const json& b) {
  auto labels = [](const json& s) {
    const json* l = at(s, {"metadata", "labels"});
    return l != nullptr && l->is_object() ? *l : json::object();
  };
  return namespace_of(a) == namespace_of(b) && labels(a) == labels(b) &&
         string_at(a, {"addressType"}) == string_at(b, {"addressType"}) &&
         array_at(a, "endpoints").empty() && array_at(b, "endpoints").empty() &&
         array_at(a, "ports").empty() && array_at(b, "ports").empty();
}

// The endpoints one group of ports wants, in pod order, and which of them are placed.
struct Desired {
  json ports;
  std::vector<json> endpoints;
  std::map<std::string, size_t> index;  // endpoint_id -> position
  std::vector<bool> placed;

  void add(json endpoint) {
    auto [it, inserted] = index.emplace(endpoint_id(endpoint), endpoints.size());
    if (inserted) {
      endpoints.push_back(std::move(endpoint));
      placed.push_back(false);
    }
  }
  size_t left() const {
    return static_cast<size_t>(std::count(placed.begin(), placed.end(), false));
  }
  // Moves unplaced endpoints into `slice` until it holds `max`.
  void fill(json& slice, size_t max) {
    json& list = slice["endpoints"];
    if (!list.is_array()) {
      list = json::array();
    }
    for (size_t i = 0; i < endpoints.size() && list.size() < max; ++i) {
      if (!placed[i]) {
        list.push_back(endpoints[i]);
        placed[i] = true;
      }
    }
  }
};

struct TypePlan {
  std::vector<json> create, update, remove;
};

// One group of ports: the existing slices with those ports and the endpoints wanted in them.
void plan_ports(const json& service, const std::vector<const json*>& existing, Desired& want,
                size_t max, TypePlan& plan) {
  std::vector<json> updating;
  std::vector<const json*> unchanged;
  for (const json* slice : existing) {
    json kept = json::array();
    bool changed = false;
    const json old_endpoints = array_at(*slice, "endpoints");
    for (const json& endpoint : old_endpoints) {
      auto it = want.index.find(endpoint_id(endpoint));
      if (it == want.index.end() || want.placed[it->second]) {
        continue;
      }
      const json& desired = want.endpoints[it->second];
      kept.push_back(desired);
      changed = changed || desired != endpoint;
      want.placed[it->second] = true;
    }
    bool labels_changed = false;
    json labels = slice_labels(*slice, service, &labels_changed);
    if (changed || kept.size() != old_endpoints.size()) {
      if (kept.empty()) {
        plan.remove.push_back(*slice);
        continue;
      }
      json copy = *slice;
      copy["endpoints"] = std::move(kept);
      copy["metadata"]["labels"] = std::move(labels);
      updating.push_back(std::move(copy));
    } else if (labels_changed) {
      json copy = *slice;
      copy["metadata"]["labels"] = std::move(labels);
      updating.push_back(std::move(copy));
    } else {
      unchanged.push_back(slice);
    }
  }
  // Slices being written anyway take new endpoints first, fullest first.
  if (want.left() > 0) {
    std::stable_sort(updating.begin(), updating.end(), [](const json& a, const json& b) {
      return array_at(a, "endpoints").size() > array_at(b, "endpoints").size();
    });
    for (json& slice : updating) {
      want.fill(slice, max);
    }
  }
  while (want.left() > 0) {
    // The rest fits in one unchanged slice? The one it fills closest to full.
    std::optional<size_t> best;
    if (want.left() < max) {
      size_t closest = max;
      for (size_t i = 0; i < unchanged.size(); ++i) {
        const size_t total = want.left() + array_at(*unchanged[i], "endpoints").size();
        if (total <= max && max - total < closest) {
          closest = max - total;
          best = i;
        }
      }
    }
    if (best) {
      json slice = *unchanged[*best];
      unchanged.erase(unchanged.begin() + static_cast<std::ptrdiff_t>(*best));
      want.fill(slice, max);
      updating.push_back(std::move(slice));
    } else {
      json slice = new_slice(service, want.ports, "");
      want.fill(slice, max);
      plan.create.push_back(std::move(slice));
    }
  }
  for (json& slice : updating) {
    plan.update.push_back(std::move(slice));
  }
}

void plan_type(const SliceInputs& in, const std::string& type,
               const std::vector<const json*>& existing, SlicePlan& out) {
  const json& service = in.service;
  TypePlan plan;
  std::map<std::string, std::vector<const json*>> existing_by_ports;
  for (const json* slice : existing) {
    if (owned_by(*slice, service)) {
      existing_by_ports[port_key(array_at(*slice, "ports"))].push_back(slice);
    } else {
      plan.remove.push_back(*slice);
    }
  }
  const bool publish_not_ready = bool_at(service, {"spec", "publishNotReadyAddresses"}, false);
  std::map<std::string, Desired> desired;
  std::vector<std::string> order;  // port keys in the order pods brought them
  for (const json* pod : in.pods) {
    if (!pod_in_endpoints(*pod, true)) {
      continue;
    }
    const std::string node = string_at(*pod, {"spec", "nodeName"});
    std::optional<std::string> zone = in.node_zone ? in.node_zone(node) : std::nullopt;
    if (!zone && !publish_not_ready) {
      out.errors.push_back("skipping Pod " + name_of(*pod) + " for Service " +
                           namespace_of(service) + "/" + name_of(service) + ": node \"" + node +
                           "\" not found");
      continue;
    }
    json endpoint = pod_endpoint(*pod, zone, service, type);
    if (array_at(endpoint, "addresses").empty()) {
      continue;
    }
    json ports = endpoint_ports(service, *pod);
    const std::string key = port_key(ports);
    auto [it, inserted] = desired.try_emplace(key);
    if (inserted) {
      it->second.ports = std::move(ports);
      order.push_back(key);
    }
    it->second.add(std::move(endpoint));
  }
  for (const std::string& key : order) {
    auto found = existing_by_ports.find(key);
    static const std::vector<const json*> kNone;
    plan_ports(service, found != existing_by_ports.end() ? found->second : kNone, desired[key],
               in.max_endpoints, plan);
  }
  for (const auto& [key, slices] : existing_by_ports) {
    if (desired.count(key) == 0) {
      for (const json* slice : slices) {
        plan.remove.push_back(*slice);
      }
    }
  }
  if (existing.size() == plan.remove.size() && plan.create.empty()) {
    json placeholder = new_slice(service, json::array(), type);
    if (plan.remove.size() == 1 && same_placeholder(plan.remove.front(), placeholder)) {
      plan.remove.clear();
    } else {
      plan.create.push_back(std::move(placeholder));
    }
  }
  for (json& slice : plan.create) {
    slice["addressType"] = type;
  }
  // Reuse a slice about to go for one about to come.
  for (size_t i = 0; i < plan.remove.size() && !plan.create.empty();) {
    const json& old = plan.remove[i];
    if (string_at(old, {"addressType"}) != type || !owned_by(old, service)) {
      ++i;
      continue;
    }
    json slice = std::move(plan.create.back());
    plan.create.pop_back();
    slice["metadata"]["name"] = name_of(old);
    slice["metadata"]["resourceVersion"] = string_at(old, {"metadata", "resourceVersion"});
    plan.update.push_back(std::move(slice));
    plan.remove.erase(plan.remove.begin() + static_cast<std::ptrdiff_t>(i));
  }
  auto annotate = [&](json& slice) {
    json& annotations = slice["metadata"]["annotations"];
    if (!annotations.is_object()) {
      annotations = json::object();
    }
    if (in.trigger_time) {
      annotations[kLastChangeTriggerTime] = rfc3339(*in.trigger_time);
    } else {
      annotations.erase(kLastChangeTriggerTime);
    }
    if (annotations.empty()) {
      slice["metadata"].erase("annotations");
    }
  };
  for (json& slice : plan.create) {
    annotate(slice);
    out.create.push_back(std::move(slice));
  }
  for (json& slice : plan.update) {
    annotate(slice);
    out.update.push_back(std::move(slice));
  }
  for (json& slice : plan.remove) {
    out.remove.push_back(std::move(slice));
  }
}

}  // namespace

std::vector<std::string> address_types(const json& service) {
  std::vector<std::string> types;
  const json* families = at(service, {"spec", "ipFamilies"});
  if (families != nullptr && families->is_array()) {
    for (const char* family : {"IPv4", "IPv6"}) {
      if (std::find(families->begin(), families->end(), family) != families->end()) {
        types.emplace_back(family);
      }
    }
  }
  if (!types.empty()) {
    return types;
  }
  if (service_ip_set(service)) {
    const bool v6 = string_at(service, {"spec", "clusterIP"}).find(':') != std::string::npos;
    return {v6 ? "IPv6" : "IPv4"};
  }
  return {"IPv4", "IPv6"};
}

json endpoint_ports(const json& service, const json& pod) {
  json ports = json::array();
  const json* service_ports = at(service, {"spec", "ports"});
  if (service_ports == nullptr || !service_ports->is_array()) {
    return ports;
  }
  for (const json& sp : *service_ports) {
    auto number = find_port(pod, sp);
    if (!number) {
      continue;
    }
    std::string protocol = string_at(sp, {"protocol"});
    json port = {{"name", string_at(sp, {"name"})},
                 {"port", *number},
                 {"protocol", protocol.empty() ? "TCP" : protocol}};
    if (const json* app = at(sp, {"appProtocol"}); app != nullptr && app->is_string()) {
      port["appProtocol"] = *app;
    }
    ports.push_back(std::move(port));
  }
  return ports;
}

json pod_endpoint(const json& pod, const std::optional<std::string>& zone, const json& service,
                  const std::string& address_type) {
  const bool serving = pod_ready(pod);
  const bool terminating = being_deleted(pod);
  // Never ready while terminating, unless the service publishes addresses that are not ready.
  const bool ready =
      bool_at(service, {"spec", "publishNotReadyAddresses"}, false) || (serving && !terminating);
  json addresses = json::array();
  const json* status = at(pod, {"status"});
  for (const json& ip : array_at(status != nullptr ? *status : json::object(), "podIPs")) {
    const std::string address = string_at(ip, {"ip"});
    const bool v6 = address.find(':') != std::string::npos;
    if (!address.empty() && v6 == (address_type == "IPv6")) {
      addresses.push_back(address);
    }
  }
  json endpoint = {
      {"addresses", std::move(addresses)},
      {"conditions", {{"ready", ready}, {"serving", serving}, {"terminating", terminating}}},
      {"targetRef",
       {{"kind", "Pod"},
        {"namespace", namespace_of(pod)},
        {"name", name_of(pod)},
        {"uid", uid_of(pod)}}}};
  if (const std::string node = string_at(pod, {"spec", "nodeName"}); !node.empty()) {
    endpoint["nodeName"] = node;
  }
  if (zone && !zone->empty()) {
    endpoint["zone"] = *zone;
  }
  if (auto hostname = published_hostname(pod, service)) {
    endpoint["hostname"] = *hostname;
  }
  return endpoint;
}

json slice_labels(const json& slice, const json& service, bool* changed) {
  json own = json::object();
  if (const json* labels = at(slice, {"metadata", "labels"}); labels != nullptr) {
    for (const auto& [key, value] : labels->items()) {
      if (!reserved_label(key)) {
        own[key] = value;
      }
    }
  }
  json wanted = json::object();
  if (const json* labels = at(service, {"metadata", "labels"}); labels != nullptr) {
    for (const auto& [key, value] : labels->items()) {
      if (!reserved_label(key)) {
        wanted[key] = value;
      }
    }
  }
  if (changed != nullptr) {
    *changed = own != wanted;
  }
  if (!service_ip_set(service)) {
    wanted[kHeadlessLabel] = "";
  }
  wanted[kServiceNameLabel] = name_of(service);
  wanted[kManagedByLabel] = kSliceManager;
  return wanted;
}

SlicePlan plan_slices(const SliceInputs& in) {
  SlicePlan out;
  const std::vector<std::string> types = address_types(in.service);
  std::map<std::string, std::vector<const json*>> by_type;
  std::vector<json> unsupported;
  for (const json* slice : in.slices) {
    const std::string type = string_at(*slice, {"addressType"});
    if (std::find(types.begin(), types.end(), type) == types.end()) {
      unsupported.push_back(*slice);
    } else {
      by_type[type].push_back(slice);
    }
  }
  for (const std::string& type : types) {
    plan_type(in, type, by_type[type], out);
  }
  for (json& slice : unsupported) {
    out.remove.push_back(std::move(slice));
  }
  return out;
}

}  // namespace cluster
