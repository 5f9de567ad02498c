// The apps workloads (Deployments, ReplicaSets, StatefulSets, DaemonSets, ControllerRevisions),
// ReplicationControllers and PodDisruptionBudgets: defaults, validation and printers.
#include "registry/kinds/kinds.h"

#include <cstdint>
#include <string>
#include <vector>

#include "registry/defaulting_fields.h"
#include "registry/go_text.h"
#include "registry/kinds/pod_spec.h"
#include "registry/print_cells.h"
#include "registry/table.h"
#include "registry/validation_rules.h"

namespace apiserver::registry::kinds {

namespace {

namespace validate {
using namespace rules;

void validate_deployment_strategy(const json& strategy, Errors& out) {
  const std::string type = str(strategy, "type");
  const json& rolling = get(strategy, "rollingUpdate");
  if (type == "Recreate") {
    if (!rolling.is_null()) {
      out.push_back(forbidden("spec.strategy.rollingUpdate",
                              "may not be specified when strategy `type` is 'Recreate'"));
    }
  } else if (type == "RollingUpdate") {
    if (rolling.is_null()) {
      out.push_back(required_value("spec.strategy.rollingUpdate",
                                   "this should be defaulted and never be nil"));
    } else {
      const json& unavailable = get(rolling, "maxUnavailable");
      const json& surge = get(rolling, "maxSurge");
      const std::string unavailable_path = "spec.strategy.rollingUpdate.maxUnavailable";
      validate_int_or_percent(unavailable, unavailable_path, out);
      validate_int_or_percent(surge, "spec.strategy.rollingUpdate.maxSurge", out);
      if (int_or_percent_value(unavailable) == 0 && int_or_percent_value(surge) == 0) {
        out.push_back(invalid_rendered(unavailable_path, go_int_or_string(unavailable),
                                       "may not be 0 when `maxSurge` is 0"));
      }
      validate_not_over_100_percent(unavailable, unavailable_path, out);
    }
  } else {
    // Upstream names this path with a capital T (text and path unverified for 1.32).
    out.push_back(
        not_supported("spec.strategy.Type", go_quote(type), {"Recreate", "RollingUpdate"}));
  }
}

void validate_workload(const std::string& kind, const json& obj, Errors& out) {
  const json& spec = get(obj, "spec");
  const json& selector = get(spec, "selector");
  const json& tmpl = get(spec, "template");
  const json& tmpl_labels = get(get(tmpl, "metadata"), "labels");
  if (kind == "StatefulSet") {
    const std::string policy = str(spec, "podManagementPolicy");
    if (policy.empty()) {
      out.push_back(required_value("spec.podManagementPolicy", ""));
    } else if (policy != "OrderedReady" && policy != "Parallel") {
      out.push_back(invalid_value("spec.podManagementPolicy", policy,
                                  "must be 'OrderedReady' or 'Parallel'"));
    }
  }
  if (kind != "DaemonSet") {
    validate_nonnegative(spec, "replicas", "spec.replicas", out);
  }
  validate_nonnegative(spec, "minReadySeconds", "spec.minReadySeconds", out);
  const std::string empty_text =
      kind == "StatefulSet" ? "empty selector is not valid for statefulset."
      : kind == "DaemonSet" ? "empty selector is invalid for daemonset"  // text unverified
                            : "empty selector is invalid for deployment";
  if (kind == "DaemonSet") {
    validate_label_selector(selector, "spec.selector", out);
    if (!selector_matches(selector, tmpl_labels)) {
      out.push_back(invalid_rendered("spec.template.metadata.labels", go_string_map(tmpl_labels),
                                     kSelectorMismatch));
    }
    if (selector.is_object() && selector_is_empty(selector)) {
      out.push_back(invalid_rendered("spec.selector", go_label_selector(selector), empty_text));
    }
  } else if (selector.is_null()) {
    out.push_back(required_value("spec.selector", ""));
  } else {
    validate_label_selector(selector, "spec.selector", out);
    if (selector_is_empty(selector)) {
      out.push_back(invalid_rendered("spec.selector", go_label_selector(selector), empty_text));
    } else if (!selector_matches(selector, tmpl_labels)) {
      out.push_back(invalid_rendered("spec.template.metadata.labels", go_string_map(tmpl_labels),
                                     kSelectorMismatch));
    }
  }
  validate_pod_template(tmpl, "spec.template", out);
  const std::string restart = str(get(tmpl, "spec"), "restartPolicy");
  if (restart != "Always") {
    out.push_back(not_supported("spec.template.spec.restartPolicy", go_quote(restart), {"Always"}));
  }
  if (kind == "Deployment") {
    validate_deployment_strategy(get(spec, "strategy"), out);
    validate_nonnegative(spec, "revisionHistoryLimit", "spec.revisionHistoryLimit", out);
  }
}

void validate_workload_update(const std::string& kind, const json& obj, const json& old,
                              Errors& out) {
  const json& spec = get(obj, "spec");
  const json& old_spec = get(old, "spec");
  if (get(spec, "selector") != get(old_spec, "selector")) {
    out.push_back(
        invalid_rendered("spec.selector", go_label_selector(get(spec, "selector")), kImmutable));
  }
  if (kind == "StatefulSet") {
    json now = spec;
    json before = old_spec;
    for (const char* key : {"replicas", "ordinals", "template", "updateStrategy",
                            "persistentVolumeClaimRetentionPolicy", "minReadySeconds"}) {
      if (now.is_object()) {
        now.erase(key);
      }
      if (before.is_object()) {
        before.erase(key);
      }
    }
    if (now != before) {
      out.push_back(
          forbidden("spec",
                    "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                    "'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
                    "'minReadySeconds' are forbidden"));
    }
  }
}

}  // namespace validate

namespace print {
using namespace cells;

// spec.replicas as decoded upstream: absent means the defaulted 1.
int64_t desired_replicas(const json& obj) {
  return integer(at(obj, "spec", "replicas"), 1);
}

json print_replication_controller(const json& obj, const Context& c) {
  auto [names, images] = container_cells(at(obj, "spec", "template", "spec"));
  return json::array({name_of(obj), desired_replicas(obj), integer(at(obj, "status", "replicas")),
                      integer(at(obj, "status", "readyReplicas")), age(obj, c), names, images,
                      format_labels(at(obj, "spec", "selector"))});
}

json print_replica_set(const json& obj, const Context& c) {
  auto [names, images] = container_cells(at(obj, "spec", "template", "spec"));
  return json::array({name_of(obj), desired_replicas(obj), integer(at(obj, "status", "replicas")),
                      integer(at(obj, "status", "readyReplicas")), age(obj, c), names, images,
                      format_label_selector(at(obj, "spec", "selector"))});
}

json print_deployment(const json& obj, const Context& c) {
  auto [names, images] = container_cells(at(obj, "spec", "template", "spec"));
  const json& status = at(obj, "status");
  return json::array(
      {name_of(obj), ratio(integer(at(status, "readyReplicas")), desired_replicas(obj)),
       integer(at(status, "updatedReplicas")), integer(at(status, "availableReplicas")),
       age(obj, c), names, images, deployment_selector(at(obj, "spec", "selector"))});
}

json print_stateful_set(const json& obj, const Context& c) {
  auto [names, images] = container_cells(at(obj, "spec", "template", "spec"));
  return json::array({name_of(obj),
                      ratio(integer(at(obj, "status", "readyReplicas")), desired_replicas(obj)),
                      age(obj, c), names, images});
}

json print_daemon_set(const json& obj, const Context& c) {
  auto [names, images] = container_cells(at(obj, "spec", "template", "spec"));
  const json& s = at(obj, "status");
  return json::array({name_of(obj), integer(at(s, "desiredNumberScheduled")),
                      integer(at(s, "currentNumberScheduled")), integer(at(s, "numberReady")),
                      integer(at(s, "updatedNumberScheduled")), integer(at(s, "numberAvailable")),
                      format_labels(at(obj, "spec", "template", "spec", "nodeSelector")),
                      age(obj, c), names, images,
                      format_label_selector(at(obj, "spec", "selector"))});
}

json print_controller_revision(const json& obj, const Context& c) {
  std::string controller = "<none>";
  for (const auto& ref : arr(at(obj, "metadata", "ownerReferences"))) {
    if (!boolean(at(ref, "controller"))) {
      continue;
    }
    // schema.GroupKind.String() lower-cased: "kind.group", or "kind" for the core group.
    const std::string api_version = str(at(ref, "apiVersion"));
    const auto slash = api_version.find('/');
    const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    const std::string kind = str(at(ref, "kind"));
    const std::string name = str(at(ref, "name"));
    if (group.empty() && kind.empty()) {
      controller = name;
    } else {
      controller = lower(group.empty() ? kind : kind + "." + group) + "/" + name;
    }
    break;
  }
  return json::array({name_of(obj), controller, integer(at(obj, "revision")), age(obj, c)});
}

json print_pdb(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  const json& min = at(spec, "minAvailable");
  const json& max = at(spec, "maxUnavailable");
  return json::array({name_of(obj), present(min) ? int_or_string(min) : "N/A",
                      present(max) ? int_or_string(max) : "N/A",
                      integer(at(obj, "status", "disruptionsAllowed")), age(obj, c)});
}

}  // namespace print

namespace defaulting {
using namespace fields;

void default_replication_controller(json& rc) {
  json* spec = object_at(rc, "spec");
  if (spec == nullptr) {
    return;
  }
  if (json* tmpl = existing_object(*spec, "template")) {
    json* tmeta = existing_object(*tmpl, "metadata");
    if (tmeta != nullptr && tmeta->contains("labels") && (*tmeta)["labels"].is_object()) {
      const json& labels = (*tmeta)["labels"];
      if (empty_map(*spec, "selector")) {
        (*spec)["selector"] = labels;
      }
      if (json* meta = object_at(rc, "metadata"); meta != nullptr && empty_map(*meta, "labels")) {
        (*meta)["labels"] = labels;
      }
    }
    default_pod_template(*tmpl);
  }
  default_value(*spec, "replicas", 1);
}

void default_deployment(json& d) {
  json* spec = object_at(d, "spec");
  if (spec == nullptr) {
    return;
  }
  default_value(*spec, "replicas", 1);
  if (json* strategy = object_at(*spec, "strategy")) {
    default_string(*strategy, "type", "RollingUpdate");
    if (string_at(*strategy, "type") == "RollingUpdate") {
      if (json* ru = object_at(*strategy, "rollingUpdate")) {
        default_value(*ru, "maxUnavailable", "25%");
        default_value(*ru, "maxSurge", "25%");
      }
    }
  }
  default_value(*spec, "revisionHistoryLimit", 10);
  default_value(*spec, "progressDeadlineSeconds", 600);
  if (json* tmpl = object_at(*spec, "template")) {
    default_pod_template(*tmpl);
  }
}

void default_daemon_set(json& ds) {
  json* spec = object_at(ds, "spec");
  if (spec == nullptr) {
    return;
  }
  if (json* strategy = object_at(*spec, "updateStrategy")) {
    default_string(*strategy, "type", "RollingUpdate");
    if (string_at(*strategy, "type") == "RollingUpdate") {
      if (json* ru = object_at(*strategy, "rollingUpdate")) {
        default_value(*ru, "maxUnavailable", 1);
        default_value(*ru, "maxSurge", 0);
      }
    }
  }
  default_value(*spec, "revisionHistoryLimit", 10);
  if (json* tmpl = object_at(*spec, "template")) {
    default_pod_template(*tmpl);
  }
}

void default_stateful_set(json& sts) {
  json* spec = object_at(sts, "spec");
  if (spec == nullptr) {
    return;
  }
  default_string(*spec, "podManagementPolicy", "OrderedReady");
  if (json* strategy = object_at(*spec, "updateStrategy")) {
    if (empty_string(*strategy, "type")) {
      (*strategy)["type"] = "RollingUpdate";
      default_value(*strategy, "rollingUpdate", json::object());
    }
    if (string_at(*strategy, "type") == "RollingUpdate") {
      if (json* ru = existing_object(*strategy, "rollingUpdate")) {
        default_value(*ru, "partition", 0);
      }
    }
  }
  if (json* policy = object_at(*spec, "persistentVolumeClaimRetentionPolicy")) {
    default_string(*policy, "whenDeleted", "Retain");
    default_string(*policy, "whenScaled", "Retain");
  }
  default_value(*spec, "replicas", 1);
  default_value(*spec, "revisionHistoryLimit", 10);
  if (json* tmpl = object_at(*spec, "template")) {
    default_pod_template(*tmpl);
  }
  for_each_object(*spec, "volumeClaimTemplates", [](json& pvc) {
    if (json* s = object_at(pvc, "spec")) {
      default_pvc_spec(*s);
    }
    if (json* status = object_at(pvc, "status")) {
      default_string(*status, "phase", "Pending");
    }
  });
}

void default_replica_set(json& rs) {
  json* spec = object_at(rs, "spec");
  if (spec == nullptr) {
    return;
  }
  default_value(*spec, "replicas", 1);
  if (json* tmpl = object_at(*spec, "template")) {
    default_pod_template(*tmpl);
  }
}

}  // namespace defaulting

}  // namespace

namespace {

// The four apps workloads share their validation, which the kind name steers.
template <const char* kKind, void (*kDefaults)(json&),
          json (*kPrint)(const json&, const cells::Context&), const char* kZeroStatus = nullptr>
KindStrategy apps_workload() {
  return {
      .group = "apps",
      .kind = kKind,
      .defaults = defaults_then_status<kDefaults, kZeroStatus>,
      .validate = [](const json& o, Errors& e) { validate::validate_workload(kKind, o, e); },
      .validate_update = [](const json& o, const json& old,
                            Errors& e) { validate::validate_workload_update(kKind, o, old, e); },
      .print = kPrint};
}

constexpr char kDeployment[] = "Deployment";
constexpr char kReplicaSet[] = "ReplicaSet";
constexpr char kStatefulSet[] = "StatefulSet";
constexpr char kDaemonSet[] = "DaemonSet";
// The status counters without omitempty in the Go types.
constexpr char kReplicasZero[] = "replicas";
constexpr char kStatefulSetZero[] = "replicas,availableReplicas";
constexpr char kDaemonSetZero[] =
    "currentNumberScheduled,numberMisscheduled,desiredNumberScheduled,numberReady";

}  // namespace

void add_workloads(Strategies& s) {
  s.push_back(
      {.group = "",
       .kind = "ReplicationController",
       .defaults = defaults_then_status<defaulting::default_replication_controller, kReplicasZero>,
       .print = print::print_replication_controller,
       .gc_policy = GcPolicy::OrphanDependents});
  s.push_back(
      apps_workload<kDeployment, defaulting::default_deployment, print::print_deployment>());
  s.push_back(apps_workload<kReplicaSet, defaulting::default_replica_set, print::print_replica_set,
                            kReplicasZero>());
  s.push_back(apps_workload<kStatefulSet, defaulting::default_stateful_set,
                            print::print_stateful_set, kStatefulSetZero>());
  s.push_back(apps_workload<kDaemonSet, defaulting::default_daemon_set, print::print_daemon_set,
                            kDaemonSetZero>());
  s.push_back(
      {.group = "apps", .kind = "ControllerRevision", .print = print::print_controller_revision});
  s.push_back({.group = "policy", .kind = "PodDisruptionBudget", .print = print::print_pdb});
}

}  // namespace apiserver::registry::kinds
