#include "nodes/node_health.h"

#include "client/objects.h"

namespace cluster {
namespace {

struct ConditionTaint {
  const char* type;
  const char* status;
  const char* key;
};

constexpr ConditionTaint kConditionTaints[] = {
    {"Ready", "False", kTaintNotReady},
    {"Ready", "Unknown", kTaintUnreachable},
    {"MemoryPressure", "True", "node.kubernetes.io/memory-pressure"},
    {"DiskPressure", "True", "node.kubernetes.io/disk-pressure"},
    {"NetworkUnavailable", "True", "node.kubernetes.io/network-unavailable"},
    {"PIDPressure", "True", "node.kubernetes.io/pid-pressure"},
};

bool same_taint(const json& a, const json& b) {
  return string_at(a, {"key"}) == string_at(b, {"key"}) &&
         string_at(a, {"effect"}) == string_at(b, {"effect"});
}

std::string label(const json& node, const char* beta, const char* stable) {
  const json* labels = at(node, {"metadata", "labels"});
  if (labels == nullptr || !labels->is_object()) {
    return "";
  }
  if (const auto it = labels->find(beta); it != labels->end() && it->is_string()) {
    return it->get<std::string>();
  }
  return string_at(*labels, {stable});
}

}  // namespace

json unknown_conditions(const json& node, const std::string& now) {
  json conditions = json::array();
  if (const json* current = at(node, {"status", "conditions"}); current && current->is_array()) {
    conditions = *current;
  }
  for (const char* type : {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure"}) {
    json* found = nullptr;
    for (json& c : conditions) {
      if (string_at(c, {"type"}) == type) {
        found = &c;
      }
    }
    if (found == nullptr) {
      conditions.push_back(
          {{"type", type},
           {"status", "Unknown"},
           {"reason", "NodeStatusNeverUpdated"},
           {"message", "Kubelet never posted node status."},
           {"lastHeartbeatTime", string_at(node, {"metadata", "creationTimestamp"})},
           {"lastTransitionTime", now}});
    } else if (string_at(*found, {"status"}) != "Unknown") {
      (*found)["status"] = "Unknown";
      (*found)["reason"] = "NodeStatusUnknown";
      (*found)["message"] = "Kubelet stopped posting node status.";
      (*found)["lastTransitionTime"] = now;
    }
  }
  return conditions;
}

std::vector<json> condition_taints(const json& node) {
  std::vector<json> taints;
  const json* conditions = at(node, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) {
    return taints;
  }
  for (const json& c : *conditions) {
    for (const ConditionTaint& ct : kConditionTaints) {
      if (string_at(c, {"type"}) == ct.type && string_at(c, {"status"}) == ct.status) {
        taints.push_back({{"key", ct.key}, {"effect", "NoSchedule"}});
      }
    }
  }
  return taints;
}

bool condition_taint_key(const std::string& key) {
  for (const ConditionTaint& ct : kConditionTaints) {
    if (key == ct.key) {
      return true;
    }
  }
  return false;
}

bool has_taint(const json& node, const std::string& key, const std::string& effect) {
  const json* taints = at(node, {"spec", "taints"});
  if (taints == nullptr || !taints->is_array()) {
    return false;
  }
  for (const json& t : *taints) {
    if (string_at(t, {"key"}) == key && string_at(t, {"effect"}) == effect) {
      return true;
    }
  }
  return false;
}

std::optional<json> with_taints(const json& taints, const std::vector<json>& add,
                                const std::vector<json>& remove, const std::string& now) {
  json out = json::array();
  bool changed = false;
  if (taints.is_array()) {
    for (const json& t : taints) {
      bool drop = false;
      for (const json& r : remove) {
        drop = drop || same_taint(t, r);
      }
      if (drop) {
        changed = true;
      } else {
        out.push_back(t);
      }
    }
  }
  for (const json& a : add) {
    bool present = false;
    for (const json& t : out) {
      present = present || same_taint(t, a);
    }
    if (!present) {
      json taint = a;
      taint["timeAdded"] = now;
      out.push_back(std::move(taint));
      changed = true;
    }
  }
  if (!changed) {
    return std::nullopt;
  }
  return out;
}

std::string zone_of(const json& node) {
  const std::string zone =
      label(node, "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone");
  const std::string region =
      label(node, "failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region");
  if (zone.empty() && region.empty()) {
    return "";
  }
  return region + ":" + zone;  // label values hold no colon
}

const char* zone_state_name(ZoneState state) {
  switch (state) {
    case ZoneState::Initial:
      return "Initial";
    case ZoneState::Normal:
      return "Normal";
    case ZoneState::PartialDisruption:
      return "PartialDisruption";
    case ZoneState::FullDisruption:
      return "FullDisruption";
  }
  return "Initial";
}

ZoneState zone_state(int ready, int not_ready, double unhealthy_threshold) {
  if (ready == 0 && not_ready > 0) {
    return ZoneState::FullDisruption;
  }
  if (not_ready > 2 && static_cast<double>(not_ready) / static_cast<double>(not_ready + ready) >=
                           unhealthy_threshold) {
    return ZoneState::PartialDisruption;
  }
  return ZoneState::Normal;
}

}  // namespace cluster
