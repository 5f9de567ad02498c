#include "services/service_pods.h"

#include "client/objects.h"

namespace cluster {

std::optional<json> service_selector(const json& service) {
  if (string_at(service, {"spec", "type"}) == "ExternalName") {
    return std::nullopt;
  }
  const json* selector = at(service, {"spec", "selector"});
  if (selector == nullptr || !selector->is_object() || selector->empty()) {
    return std::nullopt;
  }
  return *selector;
}

bool selects(const json& selector, const json& pod) {
  const json* labels = at(pod, {"metadata", "labels"});
  for (const auto& [key, value] : selector.items()) {
    if (labels == nullptr || !labels->is_object()) {
      return false;
    }
    auto it = labels->find(key);
    if (it == labels->end() || *it != value) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> services_selecting(const std::vector<ObjectPtr>& services,
                                            const json& pod) {
  std::vector<std::string> keys;
  for (const auto& service : services) {
    auto selector = service_selector(*service);
    if (selector && selects(*selector, pod)) {
      keys.push_back(namespace_of(*service) + "/" + name_of(*service));
    }
  }
  return keys;
}

void watch_services(Informer& services, Informer& pods, common::WorkQueue& queue) {
  auto service_changed = [&queue](const json& s) { queue.add(Informer::key_of(s)); };
  services.add_handlers(
      {.added = service_changed,
       .updated = [service_changed](const json&, const json& s) { service_changed(s); },
       .deleted = service_changed});
  auto pod_changed = [&services, &queue](const json& pod) {
    for (const std::string& key : services_selecting(services.list(namespace_of(pod)), pod)) {
      queue.add(key);
    }
  };
  pods.add_handlers({.added = pod_changed,
                     .updated =
                         [pod_changed](const json& old, const json& pod) {
                           pod_changed(old);
                           pod_changed(pod);
                         },
                     .deleted = pod_changed});
}

std::vector<ObjectPtr> selected_pods(const Informer& pods, const std::string& ns,
                                     const json& selector) {
  std::vector<ObjectPtr> out;
  for (ObjectPtr& pod : pods.list(ns)) {
    if (selects(selector, *pod)) {
      out.push_back(std::move(pod));
    }
  }
  return out;
}

bool service_ip_set(const json& service) {
  const std::string ip = string_at(service, {"spec", "clusterIP"});
  return !ip.empty() && ip != "None";
}

bool pod_in_endpoints(const json& pod, bool include_terminating) {
  const std::string phase = string_at(pod, {"status", "phase"});
  if (phase == "Succeeded" || phase == "Failed") {
    return false;
  }
  const json* ips = at(pod, {"status", "podIPs"});
  const bool no_ips = ips == nullptr || !ips->is_array() || ips->empty();
  if (string_at(pod, {"status", "podIP"}).empty() && no_ips) {
    return false;
  }
  return include_terminating || !being_deleted(pod);
}

namespace {

std::optional<int64_t> named_port(const json* containers, const std::string& name,
                                  const std::string& protocol, bool sidecars_only) {
  if (containers == nullptr || !containers->is_array()) {
    return std::nullopt;
  }
  for (const json& container : *containers) {
    if (sidecars_only && string_at(container, {"restartPolicy"}) != "Always") {
      continue;
    }
    const json* ports = at(container, {"ports"});
    if (ports == nullptr || !ports->is_array()) {
      continue;
    }
    for (const json& port : *ports) {
      const std::string port_protocol = string_at(port, {"protocol"});
      if (string_at(port, {"name"}) == name &&
          (port_protocol.empty() ? "TCP" : port_protocol) == protocol) {
        return int_at(port, {"containerPort"}, 0);
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> find_port(const json& pod, const json& service_port) {
  const json* target = at(service_port, {"targetPort"});
  if (target == nullptr || target->is_null()) {
    return int_at(service_port, {"port"}, 0);
  }
  if (target->is_number_integer()) {
    return target->get<int64_t>();
  }
  if (!target->is_string()) {
    return std::nullopt;
  }
  const std::string name = target->get<std::string>();
  std::string protocol = string_at(service_port, {"protocol"});
  if (protocol.empty()) {
    protocol = "TCP";
  }
  if (auto port = named_port(at(pod, {"spec", "containers"}), name, protocol, false)) {
    return port;
  }
  return named_port(at(pod, {"spec", "initContainers"}), name, protocol, true);
}

std::optional<std::string> published_hostname(const json& pod, const json& service) {
  const std::string hostname = string_at(pod, {"spec", "hostname"});
  if (hostname.empty() || string_at(pod, {"spec", "subdomain"}) != name_of(service) ||
      namespace_of(pod) != namespace_of(service)) {
    return std::nullopt;
  }
  return hostname;
}

std::optional<std::chrono::system_clock::time_point> TriggerTimes::compute(
    const json& service, const std::vector<const json*>& pods) {
  const std::string key = namespace_of(service) + "/" + name_of(service);
  Seen now;
  for (const json* pod : pods) {
    const json* ready = condition(*pod, "Ready");
    if (ready == nullptr) {
      continue;
    }
    if (auto t = parse_time(string_at(*ready, {"lastTransitionTime"}))) {
      now.pods[name_of(*pod)] = *t;
    }
  }
  now.service = parse_time(string_at(service, {"metadata", "creationTimestamp"}));

  std::lock_guard lock(mu_);
  auto it = seen_.find(key);
  if (it == seen_.end()) {
    // A service not synced before: its creation is the change.
    auto created = now.service;
    seen_[key] = std::move(now);
    return created;
  }
  const Seen& before = it->second;
  std::optional<std::chrono::system_clock::time_point> earliest;
  auto consider = [&earliest](std::chrono::system_clock::time_point t) {
    if (!earliest || t < *earliest) {
      earliest = t;
    }
  };
  for (const auto& [name, t] : now.pods) {
    auto seen = before.pods.find(name);
    if (seen == before.pods.end() || t > seen->second) {
      consider(t);
    }
  }
  if (now.service && (!before.service || *now.service > *before.service)) {
    consider(*now.service);
  }
  it->second = std::move(now);
  return earliest;
}

void TriggerTimes::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  seen_.erase(key);
}

}  // namespace cluster
