#include "nodes/simulated_node.h"

#include <array>

#include "client/objects.h"
#include "version_info.h"

namespace cluster {
namespace {

constexpr std::array<const char*, 3> kZones = {"zone-a", "zone-b", "zone-c"};

json condition_entry(const char* type, const char* status, const char* reason, const char* message,
                     const std::string& now, const json* old) {
  json c = {{"type", type},
            {"status", status},
            {"lastHeartbeatTime", now},
            {"lastTransitionTime", now},
            {"reason", reason},
            {"message", message}};
  if (old != nullptr && string_at(*old, {"status"}) == status &&
      old->contains("lastTransitionTime")) {
    c["lastTransitionTime"] = (*old)["lastTransitionTime"];
  }
  return c;
}

}  // namespace

std::string pod_ip_prefix(const json& node, int index) {
  std::string cidr = string_at(node, {"spec", "podCIDR"});
  if (auto slash = cidr.rfind('/'); slash != std::string::npos) {
    cidr.resize(slash);
    if (auto dot = cidr.rfind('.'); dot != std::string::npos) {
      return cidr.substr(0, dot + 1);
    }
  }
  return "10.244." + std::to_string(index) + ".";
}

bool kubelet_stopped(const json& node) {
  return string_at(node, {"metadata", "annotations", kKubeletAnnotation}) == "stopped";
}

std::vector<std::string> condition_events(const json& node, const json& status) {
  struct Reasons {
    const char* type;
    const char* when_true;
    const char* when_false;
  };
  static constexpr Reasons kReasons[] = {
      {"MemoryPressure", "NodeHasInsufficientMemory", "NodeHasSufficientMemory"},
      {"DiskPressure", "NodeHasDiskPressure", "NodeHasNoDiskPressure"},
      {"PIDPressure", "NodeHasInsufficientPID", "NodeHasSufficientPID"},
      {"Ready", "NodeReady", "NodeNotReady"},
  };
  std::vector<std::string> events;
  const json* conditions = at(status, {"conditions"});
  if (conditions == nullptr || !conditions->is_array()) {
    return events;
  }
  for (const json& c : *conditions) {
    const std::string type = string_at(c, {"type"});
    const std::string now = string_at(c, {"status"});
    const json* before = condition(node, type);
    if (before != nullptr && string_at(*before, {"status"}) == now) {
      continue;
    }
    for (const Reasons& r : kReasons) {
      if (type == r.type && (now == "True" || now == "False")) {
        events.push_back(now == "True" ? r.when_true : r.when_false);
      }
    }
  }
  return events;
}

json registered_node(const std::string& name, int index, const std::string& now) {
  json node = {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata",
       {{"name", name},
        {"labels",
         {{"kubernetes.io/hostname", name},
          {"kubernetes.io/os", "linux"},
          {"kubernetes.io/arch", "amd64"},
          {"beta.kubernetes.io/os", "linux"},
          {"beta.kubernetes.io/arch", "amd64"},
          {"topology.kubernetes.io/zone", kZones[static_cast<size_t>(index - 1) % kZones.size()]},
          {"topology.kubernetes.io/region", "sandbox"}}},
        {"annotations",
         {{"node.alpha.kubernetes.io/ttl", "0"},
          {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}}}}},
      {"spec",
       {{"podCIDR", "10.244." + std::to_string(index) + ".0/24"},
        {"podCIDRs", json::array({"10.244." + std::to_string(index) + ".0/24"})}}}};
  node["status"] = reported_status(node, index, now);
  return node;
}

json reported_status(const json& node, int index, const std::string& now) {
  json status =
      node.contains("status") && node["status"].is_object() ? node["status"] : json::object();
  const json defaults = {{"cpu", "4"},           {"memory", "16Gi"},
                         {"pods", "110"},        {"ephemeral-storage", "100Gi"},
                         {"hugepages-1Gi", "0"}, {"hugepages-2Mi", "0"}};
  if (!status.contains("capacity") || !status["capacity"].is_object()) {
    status["capacity"] = defaults;
  }
  if (!status.contains("allocatable") || !status["allocatable"].is_object()) {
    status["allocatable"] = status["capacity"];
  }
  auto old = [&](const char* type) { return condition(node, type); };
  status["conditions"] = json::array(
      {condition_entry("MemoryPressure", "False", "KubeletHasSufficientMemory",
                       "kubelet has sufficient memory available", now, old("MemoryPressure")),
       condition_entry("DiskPressure", "False", "KubeletHasNoDiskPressure",
                       "kubelet has no disk pressure", now, old("DiskPressure")),
       condition_entry("PIDPressure", "False", "KubeletHasSufficientPID",
                       "kubelet has sufficient PID available", now, old("PIDPressure")),
       condition_entry("Ready", "True", "KubeletReady", "kubelet is posting ready status", now,
                       old("Ready"))});
  const std::string name = name_of(node);
  status["addresses"] =
      json::array({{{"type", "InternalIP"}, {"address", "172.18.0." + std::to_string(index + 1)}},
                   {{"type", "Hostname"}, {"address", name}}});
  status["daemonEndpoints"] = {{"kubeletEndpoint", {{"Port", 10250}}}};
  status["nodeInfo"] = {{"machineID", "sandbox-" + name},
                        {"systemUUID", "sandbox-" + name},
                        {"bootID", "sandbox-" + name},
                        {"kernelVersion", "simulated"},
                        {"osImage", "kube-sandbox simulated node"},
                        {"containerRuntimeVersion", "simulated://1.0.0"},
                        {"kubeletVersion", kKubeletVersion},
                        {"kubeProxyVersion", kKubeletVersion},
                        {"operatingSystem", "linux"},
                        {"architecture", "amd64"}};
  return status;
}

}  // namespace cluster
