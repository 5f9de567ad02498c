#include "aggregator/apiservice.h"

#include <algorithm>
#include <set>

#include "common/base64.h"

#include "registry/json_access.h"
#include "registry/version_priority.h"

namespace apiserver::aggregator {
namespace {

using nlohmann::json;
using registry::string_at;
using registry::value_at;

// An int at `key`, or `fallback` when absent, of another type or out of range.
int integer(const json& j, std::string_view key, int fallback) {
  auto n = registry::integer_at(j, {key});
  return n && *n >= -1000000000 && *n <= 1000000000 ? static_cast<int>(*n) : fallback;
}

struct TableEntry {
  const char* group;
  const char* version;
  Priority priority;
};

// kube-apiserver v1.32's table: the generic control plane's entries and kube-apiserver's own.
constexpr TableEntry kTable[] = {
    {"", "v1", {18000, 1}},
    {"events.k8s.io", "v1", {17750, 15}},
    {"events.k8s.io", "v1beta1", {17750, 5}},
    {"authentication.k8s.io", "v1", {17700, 15}},
    {"authentication.k8s.io", "v1beta1", {17700, 9}},
    {"authentication.k8s.io", "v1alpha1", {17700, 1}},
    {"authorization.k8s.io", "v1", {17600, 15}},
    {"certificates.k8s.io", "v1", {17300, 15}},
    {"certificates.k8s.io", "v1alpha1", {17300, 1}},
    {"rbac.authorization.k8s.io", "v1", {17000, 15}},
    {"apiextensions.k8s.io", "v1", {16700, 15}},
    {"admissionregistration.k8s.io", "v1", {16700, 15}},
    {"admissionregistration.k8s.io", "v1beta1", {16700, 12}},
    {"admissionregistration.k8s.io", "v1alpha1", {16700, 9}},
    {"coordination.k8s.io", "v1", {16500, 15}},
    {"discovery.k8s.io", "v1", {16200, 15}},
    {"discovery.k8s.io", "v1beta1", {16200, 12}},
    {"flowcontrol.apiserver.k8s.io", "v1", {16100, 21}},
    {"flowcontrol.apiserver.k8s.io", "v1beta3", {16100, 18}},
    {"flowcontrol.apiserver.k8s.io", "v1beta2", {16100, 15}},
    {"flowcontrol.apiserver.k8s.io", "v1beta1", {16100, 12}},
    {"flowcontrol.apiserver.k8s.io", "v1alpha1", {16100, 9}},
    {"internal.apiserver.k8s.io", "v1alpha1", {16000, 9}},
    {"storagemigration.k8s.io", "v1alpha1", {15800, 9}},
    {"apps", "v1", {17800, 15}},
    {"autoscaling", "v1", {17500, 15}},
    {"autoscaling", "v2", {17500, 30}},
    {"autoscaling", "v2beta1", {17500, 9}},
    {"autoscaling", "v2beta2", {17500, 1}},
    {"batch", "v1", {17400, 15}},
    {"batch", "v1beta1", {17400, 9}},
    {"batch", "v2alpha1", {17400, 9}},
    {"networking.k8s.io", "v1", {17200, 15}},
    {"networking.k8s.io", "v1beta1", {17200, 9}},
    {"policy", "v1", {17100, 15}},
    {"policy", "v1beta1", {17100, 9}},
    {"storage.k8s.io", "v1", {16800, 15}},
    {"storage.k8s.io", "v1beta1", {16800, 9}},
    {"storage.k8s.io", "v1alpha1", {16800, 1}},
    {"scheduling.k8s.io", "v1", {16600, 15}},
    {"node.k8s.io", "v1", {16300, 15}},
    {"node.k8s.io", "v1alpha1", {16300, 1}},
    {"node.k8s.io", "v1beta1", {16300, 9}},
    {"resource.k8s.io", "v1beta1", {16200, 9}},
    {"resource.k8s.io", "v1alpha3", {16200, 1}},
};


}  // namespace

std::optional<Priority> builtin_priority(const std::string& group, const std::string& version) {
  for (const auto& entry : kTable) {
    if (group == entry.group && version == entry.version) {
      return entry.priority;
    }
  }
  return std::nullopt;
}

std::string apiservice_name(const std::string& group, const std::string& version) {
  return version + "." + group;
}

json local_apiservice(const std::string& group, const std::string& version, Priority priority,
                      const std::string& automanaged) {
  return json{
      {"apiVersion", "apiregistration.k8s.io/v1"},
      {"kind", "APIService"},
      {"metadata",
       {{"name", apiservice_name(group, version)}, {"labels", {{kAutomanagedLabel, automanaged}}}}},
      {"spec",
       {{"service", nullptr},
        {"group", group},
        {"version", version},
        {"groupPriorityMinimum", priority.group},
        {"versionPriority", priority.version}}}};
}

std::map<std::string, std::pair<std::string, std::string>> crd_group_versions(
    const std::vector<json>& crds) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  for (const json& crd : crds) {
    const json& spec = value_at(crd, {"spec"});
    const std::string group = string_at(spec, {"group"});
    const json& versions = value_at(spec, {"versions"});
    if (group.empty() || !versions.is_array()) {
      continue;
    }
    for (const json& v : versions) {
      const json& served = value_at(v, {"served"});
      const std::string name = string_at(v, {"name"});
      if (name.empty() || !served.is_boolean() || !served.get<bool>()) {
        continue;
      }
      out[apiservice_name(group, name)] = {group, name};
    }
  }
  return out;
}

Condition local_condition() {
  return {"True", "Local", "Local APIServices are always available"};
}

Condition passed_condition() {
  return {"True", "Passed", "all checks passed"};
}

ApiService parse_apiservice(const json& object) {
  ApiService out;
  const json& metadata = value_at(object, {"metadata"});
  out.name = string_at(metadata, {"name"});
  out.resource_version = string_at(metadata, {"resourceVersion"});
  out.automanaged = string_at(value_at(metadata, {"labels"}), {kAutomanagedLabel});
  const json& spec = value_at(object, {"spec"});
  out.group = string_at(spec, {"group"});
  out.version = string_at(spec, {"version"});
  out.priority.group = integer(spec, "groupPriorityMinimum", 0);
  out.priority.version = integer(spec, "versionPriority", 0);
  const json& service = value_at(spec, {"service"});
  if (service.is_object()) {
    webhook::ServiceReference ref;
    ref.namespace_ = string_at(service, {"namespace"});
    ref.name = string_at(service, {"name"});
    ref.port = integer(service, "port", 443);
    out.service = std::move(ref);
  }
  const std::string bundle = string_at(spec, {"caBundle"});
  if (!bundle.empty()) {
    out.ca_pem = common::base64_decode(bundle).value_or(std::string());
  }
  const json& insecure = value_at(spec, {"insecureSkipTLSVerify"});
  out.insecure_skip_verify = insecure.is_boolean() && insecure.get<bool>();
  const json& conditions = value_at(value_at(object, {"status"}), {"conditions"});
  if (conditions.is_array()) {
    for (const json& c : conditions) {
      if (string_at(c, {"type"}) == "Available") {
        out.available = Condition{string_at(c, {"status"}), string_at(c, {"reason"}),
                                  string_at(c, {"message"})};
      }
    }
  }
  return out;
}

bool set_available(json& object, const Condition& condition, const std::string& now) {
  if (!object.is_object()) {
    return false;
  }
  json& status = object["status"];
  if (!status.is_object()) {
    status = json::object();
  }
  json& conditions = status["conditions"];
  if (!conditions.is_array()) {
    conditions = json::array();
  }
  json entry = {{"type", "Available"},
                {"status", condition.status},
                {"lastTransitionTime", now},
                {"reason", condition.reason},
                {"message", condition.message}};
  for (json& c : conditions) {
    if (string_at(c, {"type"}) != "Available") {
      continue;
    }
    if (string_at(c, {"status"}) == condition.status) {
      if (string_at(c, {"reason"}) == condition.reason &&
          string_at(c, {"message"}) == condition.message) {
        return false;
      }
      entry["lastTransitionTime"] = value_at(c, {"lastTransitionTime"});
    }
    c = std::move(entry);
    return true;
  }
  conditions.push_back(std::move(entry));
  return true;
}

int compare_versions(const std::string& a, const std::string& b) {
  return -registry::compare_version_priority(a, b);
}

std::vector<GroupOrder> order_groups(const std::vector<ApiService>& services) {
  // Upstream's order: every APIService by groupPriorityMinimum (higher first), then by name; a
  // group goes where its first APIService is.
  std::vector<const ApiService*> sorted;
  for (const auto& s : services) {
    sorted.push_back(&s);
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const ApiService* a, const ApiService* b) {
    if (a->priority.group != b->priority.group) {
      return a->priority.group > b->priority.group;
    }
    return a->name < b->name;
  });
  std::vector<GroupOrder> out;
  std::map<std::string, std::vector<const ApiService*>> members;
  for (const ApiService* s : sorted) {
    if (members.find(s->group) == members.end()) {
      out.push_back({s->group, {}});
    }
    members[s->group].push_back(s);
  }
  for (GroupOrder& order : out) {
    auto& list = members[order.group];
    std::stable_sort(list.begin(), list.end(), [](const ApiService* a, const ApiService* b) {
      if (a->priority.version != b->priority.version) {
        return a->priority.version > b->priority.version;
      }
      return compare_versions(a->version, b->version) < 0;
    });
    std::set<std::string> seen;
    for (const ApiService* s : list) {
      if (seen.insert(s->version).second) {
        order.versions.push_back(s->version);
      }
    }
  }
  return out;
}

}  // namespace apiserver::aggregator
