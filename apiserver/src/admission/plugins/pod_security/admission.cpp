#include "admission/plugins/pod_security/admission.h"

#include <algorithm>
#include <map>
#include <set>

#include "admission/plugins.h"
#include "admission/plugins/pod_security/evaluation.h"
#include "common/go_quote.h"
#include "registry/generic/resource_errors.h"
#include "registry/json_access.h"

namespace apiserver::admission {
namespace pod_security {
namespace {

using nlohmann::json;

const std::string kAnnotationPrefix = "pod-security.kubernetes.io/";

// Pod subresources that cannot change what the checks read.
bool ignored_pod_subresource(const std::string& subresource) {
  static const std::set<std::string> kIgnored = {"exec", "attach",      "binding", "eviction",
                                                 "log",  "portforward", "proxy",   "status"};
  return kIgnored.count(subresource) != 0;
}

bool is_workload(const registry::Resource& r) {
  static const std::set<std::pair<std::string, std::string>> kWorkloads = {
      {"", "replicationcontrollers"},
      {"", "podtemplates"},
      {"apps", "replicasets"},
      {"apps", "deployments"},
      {"apps", "statefulsets"},
      {"apps", "daemonsets"},
      {"batch", "jobs"},
      {"batch", "cronjobs"}};
  return kWorkloads.count({r.group, r.resource}) != 0;
}

// The pod template of a workload object; null when it has none (a ReplicationController's is
// optional; the others always have one, empty when the object leaves it out).
std::optional<json> pod_template(const registry::Resource& r, const json& object) {
  if (r.resource == "podtemplates") {
    const json& t = registry::value_at(object, {"template"});
    return t.is_object() ? t : json::object();
  }
  if (r.resource == "cronjobs") {
    const json& t = registry::value_at(object, {"spec", "jobTemplate", "spec", "template"});
    return t.is_object() ? t : json::object();
  }
  const json& t = registry::value_at(object, {"spec", "template"});
  if (r.resource == "replicationcontrollers" && !t.is_object()) {
    return std::nullopt;
  }
  return t.is_object() ? t : json::object();
}

std::string image_of(const json& container) {
  return string_of(container, "image");
}

std::string annotation(const json& pod, const std::string& key) {
  const json& v = registry::value_at(pod, {"metadata", "annotations"});
  return v.is_object() ? string_of(v, key) : std::string();
}

bool significant_container_update(const json& c, const json& old, const json& pod,
                                  const json& old_pod) {
  if (image_of(c) != image_of(old)) {
    return true;
  }
  const std::string key = "container.seccomp.security.alpha.kubernetes.io/" + container_name(c);
  return annotation(pod, key) != annotation(old_pod, key);
}

const json& list_at(const json& pod, const char* list) {
  static const json kEmpty = json::array();
  const json& v = registry::value_at(pod, {"spec", list});
  return v.is_array() ? v : kEmpty;
}

// Whether an update changed what is re-evaluated (upstream's isSignificantPodUpdate): the
// number of containers or init containers, an image, a container's seccomp annotation, or an
// ephemeral container added or changed.
bool significant_pod_update(const json& pod, const json& old) {
  for (const char* list : {"containers", "initContainers"}) {
    const json& now = list_at(pod, list);
    const json& before = list_at(old, list);
    if (now.size() != before.size()) {
      return true;
    }
    for (size_t i = 0; i < now.size(); ++i) {
      if (significant_container_update(now[i], before[i], pod, old)) {
        return true;
      }
    }
  }
  const json& before = list_at(old, "ephemeralContainers");
  for (const auto& c : list_at(pod, "ephemeralContainers")) {
    const json* previous = nullptr;
    for (const auto& o : before) {
      if (container_name(o) == container_name(c)) {
        previous = &o;
        break;
      }
    }
    if (previous == nullptr || significant_container_update(c, *previous, pod, old)) {
      return true;
    }
  }
  return false;
}

std::string violations(const Aggregate& result) {
  if (result.allowed) {
    return "allowed";
  }
  const size_t n = result.reasons.size();
  return std::to_string(n) + (n == 1 ? " violation" : " violations");
}

// How many pods share one summary, and the lexically first of their names.
struct PodCount {
  std::string first;
  size_t count = 0;
};

class PodSecurity final : public Plugin {
 public:
  PodSecurity(NamespaceGetter get_namespace, PodLister list_pods)
      : get_namespace_(std::move(get_namespace)), list_pods_(std::move(list_pods)) {}
  std::string_view name() const override { return "PodSecurity"; }
  bool validates() const override { return true; }

  Decision validate(Attributes& a, std::string& note) override {
    if (a.operation != Operation::Create && a.operation != Operation::Update) {
      return std::nullopt;
    }
    const registry::Resource& r = *a.resource;
    if (r.group.empty() && r.resource == "namespaces") {
      return validate_namespace(a, note);
    }
    if (r.group.empty() && r.resource == "pods") {
      return validate_pod(a, note);
    }
    if (is_workload(r)) {
      return validate_workload(a, note);
    }
    return std::nullopt;
  }

 private:
  Decision validate_namespace(Attributes& a, std::string& note) {
    if (!a.subresource.empty() || a.object == nullptr) {
      return std::nullopt;
    }
    const Resolved now = policy_to_evaluate(registry::value_at(*a.object, {"metadata", "labels"}));
    if (a.operation == Operation::Create) {
      if (!now.errors.empty()) {
        note = "invalid labels: " + registry::render_field_errors(now.errors);
        return registry::invalid(*a.resource, a.name, now.errors);
      }
      return std::nullopt;
    }
    if (a.old_object == nullptr) {
      return std::nullopt;
    }
    const Resolved before =
        policy_to_evaluate(registry::value_at(*a.old_object, {"metadata", "labels"}));
    if (!now.errors.empty() &&
        (before.errors.empty() || registry::render_field_errors(now.errors) !=
                                      registry::render_field_errors(before.errors))) {
      note = "invalid labels: " + registry::render_field_errors(now.errors);
      return registry::invalid(*a.resource, a.name, now.errors);
    }
    const LevelVersion& enforce = now.policy.enforce;
    const LevelVersion& old_enforce = before.policy.enforce;
    if (enforce == old_enforce || enforce.level == Level::Privileged ||
        (enforce.version == old_enforce.version &&
         compare_levels(enforce.level, old_enforce.level) < 1)) {
      return std::nullopt;
    }
    const std::string ns = string_of(object_at(*a.object, "metadata"), "name");
    auto warnings = evaluate_pods_in_namespace(ns, enforce);
    note = "new enforce " + enforce.str() + ": " +
           (warnings.empty() ? std::string("existing pods comply")
                             : std::to_string(warnings.size()) + " warnings");
    a.warnings.insert(a.warnings.end(), warnings.begin(), warnings.end());
    return std::nullopt;
  }

  std::vector<std::string> evaluate_pods_in_namespace(const std::string& ns,
                                                      const LevelVersion& enforce) const {
    std::vector<json> pods = list_pods_(ns);
    // One pod per controller first, so that a capped check still sees every controller.
    std::vector<const json*> ordered;
    std::vector<const json*> duplicates;
    std::set<std::string> controllers;
    for (const auto& pod : pods) {
      // The pod's controller (the owner reference marked controller), by uid.
      std::optional<std::string> controller;
      const json& owners = registry::value_at(pod, {"metadata", "ownerReferences"});
      if (owners.is_array()) {
        for (const auto& o : owners) {
          if (is_true(o, "controller")) {
            controller = string_of(o, "uid");
            break;
          }
        }
      }
      if (controller && !controllers.insert(*controller).second) {
        duplicates.push_back(&pod);
      } else {
        ordered.push_back(&pod);
      }
    }
    ordered.insert(ordered.end(), duplicates.begin(), duplicates.end());
    const size_t total = ordered.size();
    if (ordered.size() > kNamespaceMaxPodsToCheck) {
      ordered.resize(kNamespaceMaxPodsToCheck);
    }
    std::vector<std::string> summaries;  // in the order first seen
    std::map<std::string, PodCount> counts;
    for (const json* pod : ordered) {
      Aggregate r =
          aggregate(evaluate_pod(enforce, object_at(*pod, "metadata"), object_at(*pod, "spec")));
      if (r.allowed) {
        continue;
      }
      const std::string summary = r.forbidden_reason();
      const std::string pod_name = string_of(object_at(*pod, "metadata"), "name");
      auto [it, inserted] = counts.try_emplace(summary, PodCount{pod_name, 0});
      if (inserted) {
        summaries.push_back(summary);
      } else if (pod_name < it->second.first) {
        it->second.first = pod_name;
      }
      ++it->second.count;
    }
    std::vector<std::string> warnings;
    if (ordered.size() < total) {
      warnings.push_back("new PodSecurity enforce level only checked against the first " +
                         std::to_string(ordered.size()) + " of " + std::to_string(total) +
                         " existing pods");
    }
    if (!summaries.empty()) {
      warnings.push_back("existing pods in namespace " + common::go_quote(ns) +
                         " violate the new PodSecurity enforce level " +
                         common::go_quote(enforce.str()));
    }
    std::vector<std::string> decorated;
    for (const auto& summary : summaries) {
      const PodCount& c = counts[summary];
      std::string who = c.first;
      if (c.count == 2) {
        who += " (and 1 other pod)";
      } else if (c.count > 2) {
        who += " (and " + std::to_string(c.count - 1) + " other pods)";
      }
      decorated.push_back(who + ": " + summary);
    }
    std::sort(decorated.begin(), decorated.end());
    warnings.insert(warnings.end(), decorated.begin(), decorated.end());
    return warnings;
  }

  Decision validate_pod(Attributes& a, std::string& note) {
    if (ignored_pod_subresource(a.subresource)) {
      return std::nullopt;
    }
    auto ns = get_namespace_(a.namespace_);
    if (!ns) {
      const std::string detail = "failed to lookup namespace " + common::go_quote(a.namespace_);
      errors::Status status = errors::internal_error(detail);
      annotate(a, "error",
               status.message + ": namespaces " + common::go_quote(a.namespace_) + " not found");
      note = detail;
      return status;
    }
    const Resolved resolved = policy_to_evaluate(registry::value_at(*ns, {"metadata", "labels"}));
    if (resolved.errors.empty() && resolved.policy.fully_privileged()) {
      annotate(a, "enforce-policy", LevelVersion{}.str());
      return std::nullopt;
    }
    if (a.object == nullptr) {
      return std::nullopt;
    }
    if (a.operation == Operation::Update && a.old_object != nullptr &&
        !significant_pod_update(*a.object, *a.old_object)) {
      note = "update changes nothing the policy reads";
      return std::nullopt;
    }
    return evaluate(a, resolved, object_at(*a.object, "metadata"), object_at(*a.object, "spec"),
                    true, note);
  }

  Decision validate_workload(Attributes& a, std::string& note) {
    if (!a.subresource.empty() || a.object == nullptr) {
      return std::nullopt;
    }
    auto ns = get_namespace_(a.namespace_);
    if (!ns) {
      annotate(a, "error",
               "failed to lookup namespace " + common::go_quote(a.namespace_) + ": namespaces " +
                   common::go_quote(a.namespace_) + " not found");
      return std::nullopt;
    }
    const Resolved resolved = policy_to_evaluate(registry::value_at(*ns, {"metadata", "labels"}));
    if (resolved.errors.empty() && resolved.policy.warn.level == Level::Privileged &&
        resolved.policy.audit.level == Level::Privileged) {
      return std::nullopt;
    }
    auto t = pod_template(*a.resource, *a.object);
    if (!t) {
      return std::nullopt;
    }
    return evaluate(a, resolved, object_at(*t, "metadata"), object_at(*t, "spec"), false, note);
  }

  // Upstream's EvaluatePod: enforce (pods only) refuses, audit annotates, warn warns (only when
  // the request is not refused); one evaluation per distinct level and version.
  Decision evaluate(Attributes& a, const Resolved& resolved, const json& metadata, const json& spec,
                    bool enforce, std::string& note) {
    const Policy& p = resolved.policy;
    if (!resolved.errors.empty()) {
      annotate(a, "error",
               "Failed to parse policy: " + registry::render_field_errors(resolved.errors));
    }
    std::map<std::string, Aggregate> cache;
    auto result_at = [&](const LevelVersion& lv) -> const Aggregate& {
      auto it = cache.find(lv.str());
      if (it == cache.end()) {
        it = cache.emplace(lv.str(), aggregate(evaluate_pod(lv, metadata, spec))).first;
      }
      return it->second;
    };
    std::vector<std::string> said;
    if (!resolved.errors.empty()) {
      said.push_back("labels do not parse");
    }
    Decision decision;
    if (enforce) {
      annotate(a, "enforce-policy", p.enforce.str());
      const Aggregate& r = result_at(p.enforce);
      if (!r.allowed) {
        decision = forbidden(a,
                             "violates PodSecurity " + common::go_quote(p.enforce.str()) + ": " +
                                 r.forbidden_detail(),
                             a.name);
      }
      said.push_back("enforce " + p.enforce.str() + ": " + violations(r));
    }
    const Aggregate& audit = result_at(p.audit);
    if (!audit.allowed) {
      annotate(a, "audit-violations",
               "would violate PodSecurity " + common::go_quote(p.audit.str()) + ": " +
                   audit.forbidden_detail());
    }
    if (p.audit.level != Level::Privileged) {
      said.push_back("audit " + p.audit.str() + ": " + violations(audit));
    }
    if (!decision) {
      const Aggregate& warn = result_at(p.warn);
      if (!warn.allowed) {
        a.warnings.push_back("would violate PodSecurity " + common::go_quote(p.warn.str()) + ": " +
                             warn.forbidden_detail());
      }
      if (p.warn.level != Level::Privileged) {
        said.push_back("warn " + p.warn.str() + ": " + violations(warn));
      }
    }
    note = join(said, "; ");
    return decision;
  }

  static void annotate(Attributes& a, const std::string& key, const std::string& value) {
    a.audit_annotations.emplace_back(kAnnotationPrefix + key, value);
  }

  NamespaceGetter get_namespace_;
  PodLister list_pods_;
};

}  // namespace

std::unique_ptr<Plugin> make_plugin(NamespaceGetter get_namespace, PodLister list_pods) {
  return std::make_unique<PodSecurity>(std::move(get_namespace), std::move(list_pods));
}

}  // namespace pod_security

std::unique_ptr<Plugin> make_pod_security(const Services& services) {
  const Services* s = &services;
  return pod_security::make_plugin(
      [s](const std::string& name) { return s->get("", "namespaces", "", name); },
      [s](const std::string& ns) { return s->list("", "pods", ns); });
}

}  // namespace apiserver::admission
