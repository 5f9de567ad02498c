// LimitRanger (plugin/pkg/admission/limitranger): the namespace's LimitRanges bound what pods and
// persistent volume claims ask for. Mutating pass, pods on create: each container (and init
// container) without a request or limit gets the Container items' defaultRequest and default,
// listed in the kubernetes.io/limit-ranger annotation. Validating pass: each container within a
// Container item's min, max and maxLimitRequestRatio, the pod's sums within a Pod item's, a
// claim's storage request within a PersistentVolumeClaim item's. Pod updates and subresources are
// not checked (a pod's containers cannot change), nor objects being deleted.
#include <cmath>
#include <cstdio>
#include <vector>

#include "admission/plugins.h"
#include "admission/plugins/resource_list.h"
#include "common/go_errors.h"
#include "registry/json_access.h"

namespace apiserver::admission {
namespace {

using nlohmann::json;

constexpr const char* kAnnotation = "kubernetes.io/limit-ranger";

// A Container item's defaults as the API's defaulting completes them: default from max,
// defaultRequest from default, then from min.
struct ContainerDefaults {
  json limits = json::object();
  json requests = json::object();
  std::string from;  // the LimitRange's name, for the trace
};

void fill_missing(json& into, const json* from) {
  if (from == nullptr || !from->is_object()) {
    return;
  }
  for (const auto& [name, value] : from->items()) {
    if (!into.contains(name)) {
      into[name] = value;
    }
  }
}

// One LimitRange's Container defaults (a later item overrides an earlier one, as upstream's map
// assignments).
ContainerDefaults container_defaults(const json& range) {
  ContainerDefaults out;
  out.from = registry::string_at(range, {"metadata", "name"});
  const json* items = registry::find_path(range, {"spec", "limits"});
  if (items == nullptr || !items->is_array()) {
    return out;
  }
  for (const json& item : *items) {
    if (registry::string_at(item, {"type"}) != "Container") {
      continue;
    }
    json limits = json::object();
    fill_missing(limits, registry::find_path(item, {"default"}));
    fill_missing(limits, registry::find_path(item, {"max"}));
    json requests = json::object();
    fill_missing(requests, registry::find_path(item, {"defaultRequest"}));
    fill_missing(requests, &limits);
    fill_missing(requests, registry::find_path(item, {"min"}));
    for (const auto& [name, value] : limits.items()) {
      out.limits[name] = value;
    }
    for (const auto& [name, value] : requests.items()) {
      out.requests[name] = value;
    }
  }
  return out;
}

// Fills one container's missing requests and limits; returns the annotation's parts.
void merge_container(json& container, const ContainerDefaults& defaults, const std::string& what,
                     std::vector<std::string>& annotation, std::vector<std::string>& notes) {
  json& resources = container["resources"];
  if (!resources.is_object()) {
    resources = json::object();
  }
  const std::string name = registry::string_at(container, {"name"});
  std::vector<std::string> set_requests;
  std::vector<std::string> set_limits;
  auto merge = [&](const char* kind, const json& from, std::vector<std::string>& set) {
    json& list = resources[kind];
    if (!list.is_object()) {
      list = json::object();
    }
    for (const auto& [resource, value] : from.items()) {
      if (!list.contains(resource)) {
        list[resource] = value;
        set.push_back(resource);
      }
    }
    if (list.empty()) {
      resources.erase(kind);
    }
  };
  merge("limits", defaults.limits, set_limits);
  merge("requests", defaults.requests, set_requests);
  auto joined = [](const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) {
      out += (out.empty() ? "" : ", ") + n;
    }
    return out;
  };
  const std::string source = " from limitrange/" + defaults.from;
  if (!set_requests.empty()) {
    annotation.push_back(joined(set_requests) + " request for " + what + " " + name);
    notes.push_back("defaulted " + joined(set_requests) + " request for " + what + " " + name +
                    source);
  }
  if (!set_limits.empty()) {
    annotation.push_back(joined(set_limits) + " limit for " + what + " " + name);
    notes.push_back("defaulted " + joined(set_limits) + " limit for " + what + " " + name + source);
  }
}

// Upstream's comparisons, to the milli-unit.
int64_t milli(double value) {
  return static_cast<int64_t>(std::ceil(value * 1000 - 1e-6));
}

std::string text_of(const Amount& a) {
  return a.text();
}

void min_constraint(const std::string& type, const std::string& resource, const Amount& enforced,
                    const json* requests, const json* limits, std::vector<std::string>& errors) {
  auto request = amount_at(requests, resource);
  auto limit = amount_at(limits, resource);
  const std::string head =
      "minimum " + resource + " usage per " + type + " is " + text_of(enforced);
  if (!request) {
    errors.push_back(head + ".  No request is specified");
  } else if (milli(request->value) < milli(enforced.value)) {
    errors.push_back(head + ", but request is " + text_of(*request));
  } else if (limit && milli(limit->value) < milli(enforced.value)) {
    errors.push_back(head + ", but limit is " + text_of(*limit));
  }
}

void max_constraint(const std::string& type, const std::string& resource, const Amount& enforced,
                    const json* requests, const json* limits, std::vector<std::string>& errors) {
  auto request = amount_at(requests, resource);
  auto limit = amount_at(limits, resource);
  const std::string head =
      "maximum " + resource + " usage per " + type + " is " + text_of(enforced);
  if (!limit) {
    errors.push_back(head + ".  No limit is specified");
  } else if (milli(limit->value) > milli(enforced.value)) {
    errors.push_back(head + ", but limit is " + text_of(*limit));
  } else if (request && milli(request->value) > milli(enforced.value)) {
    errors.push_back(head + ", but request is " + text_of(*request));
  }
}

// A claim's maximum bounds its request only (a claim has no limits).
void max_request_constraint(const std::string& type, const std::string& resource,
                            const Amount& enforced, const json* requests,
                            std::vector<std::string>& errors) {
  auto request = amount_at(requests, resource);
  const std::string head =
      "maximum " + resource + " usage per " + type + " is " + text_of(enforced);
  if (!request) {
    errors.push_back(head + ".  No request is specified");
  } else if (milli(request->value) > milli(enforced.value)) {
    errors.push_back(head + ", but request is " + text_of(*request));
  }
}

void ratio_constraint(const std::string& type, const std::string& resource, const Amount& enforced,
                      const json* requests, const json* limits, std::vector<std::string>& errors) {
  auto request = amount_at(requests, resource);
  auto limit = amount_at(limits, resource);
  const std::string head =
      resource + " max limit to request ratio per " + type + " is " + text_of(enforced);
  if (!request || milli(request->value) == 0) {
    errors.push_back(head + ", but no request is specified or request is 0");
    return;
  }
  if (!limit || milli(limit->value) == 0) {
    errors.push_back(head + ", but no limit is specified or limit is 0");
    return;
  }
  const double observed =
      static_cast<double>(milli(limit->value)) / static_cast<double>(milli(request->value));
  if (observed * 1000 > static_cast<double>(milli(enforced.value))) {
    char shown[64];
    std::snprintf(shown, sizeof shown, "%f", observed);  // Go's %f
    errors.push_back(head + ", but provided ratio is " + shown);
  }
}

// One item's min, max and ratio over one set of requests and limits.
void check_item(const json& item, const std::string& type, const json* requests, const json* limits,
                std::vector<std::string>& errors) {
  for (const auto& [resource, enforced] : amounts(registry::find_path(item, {"min"}))) {
    min_constraint(type, resource, enforced, requests, limits, errors);
  }
  for (const auto& [resource, enforced] : amounts(registry::find_path(item, {"max"}))) {
    max_constraint(type, resource, enforced, requests, limits, errors);
  }
  for (const auto& [resource, enforced] :
       amounts(registry::find_path(item, {"maxLimitRequestRatio"}))) {
    ratio_constraint(type, resource, enforced, requests, limits, errors);
  }
}

json as_list(const std::map<std::string, Amount>& sums) {
  json out = json::object();
  for (const auto& [name, amount] : sums) {
    out[name] = amount.text();
  }
  return out;
}

void check_pod(const json& range, const json& pod, std::vector<std::string>& errors) {
  const json* items = registry::find_path(range, {"spec", "limits"});
  if (items == nullptr || !items->is_array()) {
    return;
  }
  for (const json& item : *items) {
    const std::string type = registry::string_at(item, {"type"});
    if (type == "Container") {
      for (const char* which : {"containers", "initContainers"}) {
        const json* list = registry::find_path(pod, {"spec", which});
        if (list == nullptr || !list->is_array()) {
          continue;
        }
        for (const json& c : *list) {
          check_item(item, type, registry::find_path(c, {"resources", "requests"}),
                     registry::find_path(c, {"resources", "limits"}), errors);
        }
      }
    } else if (type == "Pod") {
      const json requests = as_list(pod_resources(pod, "requests", false));
      const json limits = as_list(pod_resources(pod, "limits", false));
      check_item(item, type, &requests, &limits, errors);
    }
  }
}

void check_claim(const json& range, const json& claim, std::vector<std::string>& errors) {
  const json* items = registry::find_path(range, {"spec", "limits"});
  if (items == nullptr || !items->is_array()) {
    return;
  }
  const json* requests = registry::find_path(claim, {"spec", "resources", "requests"});
  for (const json& item : *items) {
    const std::string type = registry::string_at(item, {"type"});
    if (type != "PersistentVolumeClaim") {
      continue;
    }
    const json none = json::object();
    for (const auto& [resource, enforced] : amounts(registry::find_path(item, {"min"}))) {
      min_constraint(type, resource, enforced, requests, &none, errors);
    }
    for (const auto& [resource, enforced] : amounts(registry::find_path(item, {"max"}))) {
      max_request_constraint(type, resource, enforced, requests, errors);
    }
  }
}

class LimitRanger final : public Plugin {
 public:
  explicit LimitRanger(const Services& services) : services_(services) {}
  std::string_view name() const override { return "LimitRanger"; }
  bool mutates() const override { return true; }
  bool validates() const override { return true; }

  Decision admit(Attributes& a, std::string& note) override {
    if (!handled(a) || a.resource->resource != "pods" || !a.resource->group.empty() ||
        !a.object->is_object()) {
      return std::nullopt;
    }
    auto spec_at = a.object->find("spec");
    if (spec_at == a.object->end() || !spec_at->is_object()) {
      return std::nullopt;
    }
    json& spec = *spec_at;
    // Each range in turn fills what is still missing; the annotation lists what the last range
    // that set anything set, as upstream's.
    std::vector<std::string> notes;
    for (const json& range : services_.list("", "limitranges", a.namespace_)) {
      const ContainerDefaults defaults = container_defaults(range);
      if (defaults.limits.empty() && defaults.requests.empty()) {
        continue;
      }
      std::vector<std::string> annotation;
      for (const auto& [which, what] :
           {std::pair<const char*, const char*>{"containers", "container"},
            {"initContainers", "init container"}}) {
        json* list = spec.contains(which) ? &spec[which] : nullptr;
        if (list == nullptr || !list->is_array()) {
          continue;
        }
        for (json& c : *list) {
          if (c.is_object()) {
            merge_container(c, defaults, what, annotation, notes);
          }
        }
      }
      if (annotation.empty()) {
        continue;
      }
      std::string text = "LimitRanger plugin set: ";
      for (size_t i = 0; i < annotation.size(); ++i) {
        text += (i == 0 ? "" : "; ") + annotation[i];
      }
      json& metadata = (*a.object)["metadata"];
      if (!metadata.is_object()) {
        continue;  // not an object's metadata: validation refuses it
      }
      if (!metadata["annotations"].is_object()) {
        metadata["annotations"] = json::object();
      }
      metadata["annotations"][kAnnotation] = text;
    }
    for (const auto& n : notes) {
      note += (note.empty() ? "" : "; ") + n;
    }
    return std::nullopt;
  }

  Decision validate(Attributes& a, std::string& note) override {
    if (!handled(a) || !a.resource->group.empty()) {
      return std::nullopt;
    }
    const std::string& resource = a.resource->resource;
    if (resource != "pods" && resource != "persistentvolumeclaims") {
      return std::nullopt;
    }
    const std::vector<json> ranges = services_.list("", "limitranges", a.namespace_);
    for (const json& range : ranges) {
      std::vector<std::string> errors;
      if (resource == "pods") {
        check_pod(range, *a.object, errors);
      } else {
        check_claim(range, *a.object, errors);
      }
      if (!errors.empty()) {
        return forbidden(a, common::go_aggregate(errors));
      }
    }
    if (!ranges.empty()) {
      note = "within limitrange/" + registry::string_at(ranges.front(), {"metadata", "name"}) +
             (ranges.size() > 1 ? " and " + std::to_string(ranges.size() - 1) + " more" : "");
    }
    return std::nullopt;
  }

 private:
  // Creates and updates of main resources, not of pods once created, nor of objects being
  // deleted.
  static bool handled(const Attributes& a) {
    if (a.object == nullptr || !a.subresource.empty() ||
        (a.operation != Operation::Create && a.operation != Operation::Update)) {
      return false;
    }
    if (a.operation == Operation::Update && a.kind == "Pod" && a.kind_group.empty()) {
      return false;
    }
    return a.old_object == nullptr ||
           registry::find_path(*a.old_object, {"metadata", "deletionTimestamp"}) == nullptr;
  }

  const Services& services_;
};

}  // namespace

std::unique_ptr<Plugin> make_limit_ranger(const Services& services) {
  return std::make_unique<LimitRanger>(services);
}

}  // namespace apiserver::admission
