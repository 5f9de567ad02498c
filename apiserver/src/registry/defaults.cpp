#include "registry/defaults.h"

#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "registry/go_values.h"
#include "registry/kind_strategy.h"

namespace apiserver::registry {

using nlohmann::json;

std::string default_image_pull_policy(const std::string& image) {
  std::string name = image;
  std::string digest;
  if (auto at = name.find('@'); at != std::string::npos) {
    digest = name.substr(at + 1);
    name = name.substr(0, at);
  }
  std::string tag;
  size_t slash = name.rfind('/');
  size_t colon = name.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    tag = name.substr(colon + 1);
    name = name.substr(0, colon);
  }
  // The repository path (after an optional registry host) must be lower case, or the docker
  // reference grammar rejects the image and no tag is found.
  std::string path = name;
  if (size_t first = name.find('/'); first != std::string::npos) {
    std::string host = name.substr(0, first);
    if (host.find('.') != std::string::npos || host.find(':') != std::string::npos ||
        host == "localhost") {
      path = name.substr(first + 1);
    }
  }
  bool valid = !name.empty() && !path.empty();
  for (char ch : path) {
    if (std::isupper(static_cast<unsigned char>(ch))) {
      valid = false;
    }
  }
  if (!valid) {
    return "IfNotPresent";
  }
  if (tag.empty() && digest.empty()) {
    tag = "latest";
  }
  return tag == "latest" ? "Always" : "IfNotPresent";
}

std::string pod_qos_class(const nlohmann::json& pod) {
  std::map<std::string, long double> requests;
  std::map<std::string, long double> limits;
  bool guaranteed = true;
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) {
    return "BestEffort";
  }
  auto sum = [](const json& list, std::map<std::string, long double>& into,
                std::set<std::string>* found) {
    if (!list.is_object()) {
      return;
    }
    for (auto it = list.begin(); it != list.end(); ++it) {
      if (it.key() != "cpu" && it.key() != "memory") {
        continue;
      }
      auto q = go_quantity_value(*it);
      if (q && *q > 0) {
        into[it.key()] += *q;
        if (found != nullptr) {
          found->insert(it.key());
        }
      }
    }
  };
  for (const char* list : {"initContainers", "containers"}) {
    auto containers = spec->find(list);
    if (containers == spec->end() || !containers->is_array()) {
      continue;
    }
    for (const auto& c : *containers) {
      if (!c.is_object() || !c.contains("resources") || !c["resources"].is_object()) {
        guaranteed = false;
        continue;
      }
      const json& res = c["resources"];
      std::set<std::string> limits_found;
      if (res.contains("requests")) {
        sum(res["requests"], requests, nullptr);
      }
      if (res.contains("limits")) {
        sum(res["limits"], limits, &limits_found);
      }
      if (limits_found.size() != 2) {
        guaranteed = false;
      }
    }
  }
  if (requests.empty() && limits.empty()) {
    return "BestEffort";
  }
  if (guaranteed) {
    for (const auto& [name, value] : requests) {
      auto lim = limits.find(name);
      if (lim == limits.end() || std::fabs(lim->second - value) > 1e-12L * std::fabs(value)) {
        guaranteed = false;
      }
    }
  }
  return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
}

void apply_defaults(const Resource& resource, nlohmann::json& object) {
  apply_defaults(resource, object, DefaultingContext{});
}

bool has_defaults(const Resource& resource) {
  const KindStrategy* strategy = kind_strategy(resource.group, resource.kind);
  return strategy != nullptr && strategy->defaults != nullptr;
}

void apply_defaults(const Resource& resource, nlohmann::json& object,
                    const DefaultingContext& context) {
  if (!object.is_object()) {
    return;
  }
  const KindStrategy* strategy = kind_strategy(resource.group, resource.kind);
  if (strategy != nullptr && strategy->defaults != nullptr) {
    strategy->defaults(object, context);
  }
}

}  // namespace apiserver::registry
