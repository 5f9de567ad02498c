#include "autoscaling/horizontal_pod_autoscaler_controller.h"

#include <set>

#include "apiserver/log.h"
#include "autoscaling/hpa_rules.h"
#include "autoscaling/replica_calculator.h"
#include "client/objects.h"
#include "common/quantity.h"

namespace cluster {
namespace {

const ResourceRef kAutoscalers{"autoscaling", "v2", "horizontalpodautoscalers", true};
const ResourceRef kPodMetrics{"metrics.k8s.io", "v1beta1", "pods", true};
const ResourceRef kPods{"", "v1", "pods", true};

// How often discovery may be read again for a kind it did not know (a CRD being added).
constexpr std::chrono::seconds kRediscoverAfter{10};

}  // namespace

HorizontalPodAutoscalerController::HorizontalPodAutoscalerController(
    const Client& client, std::chrono::milliseconds sync_period,
    std::chrono::seconds downscale_stabilization, const common::Clock& clock)
    : Controller("horizontal-pod-autoscaler-controller", clock),
      client_(client),
      events_(client, "horizontal-pod-autoscaler", "", clock),
      autoscalers_(client, kAutoscalers, {}, clock),
      period_(sync_period),
      downscale_stabilization_(downscale_stabilization) {
  // As upstream's queue: an HPA is looked at one sync period after it changes, and then every
  // sync period; a key already waiting is not added twice.
  auto changed = [this](const json& hpa) { requeue_after(Informer::key_of(hpa), period_); };
  autoscalers_.add_handlers({.added = changed,
                             .updated = [changed](const json&, const json& hpa) { changed(hpa); },
                             .deleted = {}});
}

HorizontalPodAutoscalerController::~HorizontalPodAutoscalerController() {
  stop();
  autoscalers_.stop();
}

void HorizontalPodAutoscalerController::start() {
  autoscalers_.start();
}

common::Result<ResourceRef> HorizontalPodAutoscalerController::scale_resource(
    const std::string& api_version, const std::string& kind) {
  using Out = common::Result<ResourceRef>;
  auto gv = parse_group_version(api_version);
  if (!gv) {
    return Out::failure("invalid API version in scale target reference: " + gv.error());
  }
  // The RESTMapper maps a group and kind: the version asked for first, then any served one.
  auto find = [&]() -> std::optional<ResourceRef> {
    if (!discovery_) {
      return std::nullopt;
    }
    if (auto exact = discovery_->resource_for(api_version, kind)) {
      return exact;
    }
    for (const auto& [key, resource] : discovery_->by_kind) {
      if (resource.group == gv->group && key.substr(key.find(' ') + 1) == kind) {
        return resource;
      }
    }
    return std::nullopt;
  };
  auto found = find();
  if (!found && (!discovery_ || clock().now() - discovered_at_ >= kRediscoverAfter)) {
    auto read = gc::discover(client_);
    if (!read) {
      return Out::failure("unable to determine resource for scale target reference: " +
                          read.error());
    }
    discovery_ = std::move(*read);
    discovered_at_ = clock().now();
    found = find();
  }
  if (!found) {
    return Out::failure(
        "unable to determine resource for scale target reference: no matches for kind \"" + kind +
        "\" in group \"" + gv->group + "\"");
  }
  return *found;
}

MetricOutcome HorizontalPodAutoscalerController::evaluate_metric(
    const json& metric, const std::string& namespace_, const std::string& selector, int64_t current,
    const std::vector<ObjectPtr>& pods) const {
  const std::string type = string_at(metric, {"type"});
  if (type != "Resource" && type != "ContainerResource") {
    return metric_failure(metric, type == "External"
                                      ? "kube-sandbox's HPA controller reads no external metrics"
                                      : "kube-sandbox's HPA controller reads no custom metrics");
  }
  const bool whole_pod = type == "Resource";
  const json* found = at(metric, {whole_pod ? "resource" : "containerResource"});
  const json source = found != nullptr ? *found : json::object();
  const std::string resource = string_at(source, {"name"});
  const std::string container = whole_pod ? "" : string_at(source, {"container"});
  const json* target = at(source, {"target"});
  const bool by_value = target != nullptr && at(*target, {"averageValue"}) != nullptr;
  if (target == nullptr || (!by_value && at(*target, {"averageUtilization"}) == nullptr)) {
    return metric_failure(metric, "");  // neither target: the failure says so
  }
  auto listed = client_.get(kPodMetrics.collection(namespace_), {{"labelSelector", selector}});
  if (!listed) {
    return metric_failure(
        metric, resource_metrics_error(resource, listed.error().code, listed.error().message));
  }
  auto metrics = pod_metrics(*listed, resource, container);
  if (!metrics) {
    return metric_failure(
        metric, "unable to get metrics for resource " + resource + ": " + metrics.error());
  }
  ReplicaCalculation how;
  how.now = clock().system_now();
  auto proposal =
      by_value ? replicas_for_average_value(
                     how, current, milli_value(string_at(*target, {"averageValue"})).value_or(0),
                     resource, std::move(*metrics), pods)
               : replicas_for_utilization(how, current, int_at(*target, {"averageUtilization"}, 0),
                                          resource, container, std::move(*metrics), pods);
  if (!proposal) {
    return metric_failure(metric, proposal.error());
  }
  json current_value = {
      {"averageValue", common::format_quantity(static_cast<double>(proposal->raw_average) / 1000,
                                               common::QuantityFormat::DecimalSI)}};
  if (!by_value) {
    current_value["averageUtilization"] = proposal->utilization;
  }
  json status = {{"type", type}};
  json& reported = status[whole_pod ? "resource" : "containerResource"];
  reported = {{"name", resource}, {"current", current_value}};
  if (!whole_pod) {
    reported["container"] = container;
  }
  const std::string what = whole_pod ? resource + " resource" : resource + " container resource";
  return MetricProposal{proposal->replicas,
                        by_value ? what : what + " utilization (percentage of request)", status};
}

std::optional<std::string> HorizontalPodAutoscalerController::ambiguity(const json& hpa,
                                                                        const std::string& selector,
                                                                        const json& pods) const {
  std::set<std::string> mine;
  for (const json& pod : pods) {
    mine.insert(name_of(pod));
  }
  const std::string ns = namespace_of(hpa);
  const std::string self = Informer::key_of(hpa);
  std::set<std::string> selecting = {self};
  for (const auto& [key, other] : selectors_) {
    if (key == self || key.substr(0, key.find('/')) != ns || other.empty()) {
      continue;
    }
    auto theirs = client_.get(kPods.collection(ns), {{"labelSelector", other}});
    const json* items = theirs ? at(*theirs, {"items"}) : nullptr;
    if (items == nullptr || !items->is_array()) {
      continue;
    }
    for (const json& pod : *items) {
      if (mine.contains(name_of(pod))) {
        selecting.insert(key);
        break;
      }
    }
  }
  if (selecting.size() < 2) {
    return std::nullopt;
  }
  std::string keys;
  for (const std::string& key : selecting) {
    keys += (keys.empty() ? "" : " ") + key;
  }
  return "pods by selector " + selector + " are controlled by multiple HPAs: [" + keys + "]";
}

std::optional<std::string> HorizontalPodAutoscalerController::write_status(const json& before,
                                                                           const json& after) {
  if (at(before, {"status"}) != nullptr && *at(before, {"status"}) == after["status"]) {
    return std::nullopt;
  }
  auto written =
      client_.update(kAutoscalers.object(namespace_of(after), name_of(after), "status"), after);
  if (!written) {
    events_.record(before, "Warning", "FailedUpdateStatus", written.error().message);
    return "failed to update status for " + name_of(after) + ": " + written.error().message;
  }
  return std::nullopt;
}

std::optional<std::string> HorizontalPodAutoscalerController::sync(const std::string& key) {
  const size_t slash = key.find('/');
  ObjectPtr found = autoscalers_.get(key.substr(0, slash), key.substr(slash + 1));
  if (found == nullptr) {
    histories_.erase(key);
    selectors_.erase(key);
    return std::nullopt;  // deleted: nothing more to look at
  }
  // As upstream: a failure is logged and the HPA looked at again one sync period later, like any.
  if (auto failed = reconcile(*found)) {
    apiserver::log::info(2, name() + ": syncing " + key + " failed: " + *failed);
  }
  requeue_after(key, period_);
  return std::nullopt;
}

std::optional<std::string> HorizontalPodAutoscalerController::reconcile(const json& hpa) {
  const std::string ns = namespace_of(hpa);
  json next = hpa;
  if (!next["status"].is_object()) {
    next["status"] = json::object();
  }
  json& status = next["status"];
  json& conditions = status["conditions"];
  const std::string now = rfc3339(clock().system_now());
  auto set = [&](const char* type, const char* value, const char* reason,
                 const std::string& message) {
    set_condition(conditions, type, value, reason, message, now);
  };

  const std::string kind = string_at(hpa, {"spec", "scaleTargetRef", "kind"});
  const std::string target = string_at(hpa, {"spec", "scaleTargetRef", "name"});
  const std::string reference = kind + "/" + ns + "/" + target;
  auto resource = scale_resource(string_at(hpa, {"spec", "scaleTargetRef", "apiVersion"}), kind);
  auto scale = resource ? client_.get(resource->object(ns, target, "scale")) : Result<json>(json());
  if (!resource || !scale) {
    const std::string error = !resource ? resource.error()
                                        : "failed to query scale subresource for " + reference +
                                              ": " + scale.error().message;
    events_.record(hpa, "Warning", "FailedGetScale", error);
    set("AbleToScale", "False", "FailedGetScale",
        "the HPA controller was unable to get the target's current scale: " + error);
    if (auto failed = write_status(hpa, next)) {
      return failed;
    }
    return error;
  }
  set("AbleToScale", "True", "SucceededGetScale",
      "the HPA controller was able to get the target's current scale");

  const int64_t current = int_at(*scale, {"spec", "replicas"}, 0);
  ScaleHistory& history = histories_[Informer::key_of(hpa)];
  history.record_initial(current, clock().system_now());
  // status.currentReplicas is left out when zero, as the Go type's omitempty does.
  auto set_current = [&] {
    if (current == 0) {
      status.erase("currentReplicas");
    } else {
      status["currentReplicas"] = current;
    }
  };
  const BoundsDecision bounds = decide_by_bounds(current, int_at(hpa, {"spec", "minReplicas"}, 1),
                                                 int_at(hpa, {"spec", "maxReplicas"}, 0));
  int64_t desired = current;
  std::string reason;
  bool with_metrics = false;
  if (bounds.kind == BoundsDecision::Kind::Disabled) {
    desired = 0;
    set("ScalingActive", "False", "ScalingDisabled",
        "scaling is disabled since the replica count of the target is zero");
  } else if (bounds.kind == BoundsDecision::Kind::Rescale) {
    desired = bounds.desired;
    reason = bounds.reason;
  } else {
    with_metrics = true;
  }

  if (with_metrics) {
    const std::string selector = string_at(*scale, {"status", "selector"});
    const json* metrics = at(hpa, {"spec", "metrics"});
    const size_t total = metrics != nullptr && metrics->is_array() ? metrics->size() : 0;
    std::string error;
    int64_t proposed = -1;
    std::string metric_name;
    json statuses = json::array();
    if (selector.empty()) {
      error = "selector is required";
      events_.record(hpa, "Warning", "SelectorRequired", error);
      set("ScalingActive", "False", "InvalidSelector",
          "the HPA target's scale is missing a selector");
    } else {
      // computeReplicasForMetrics: the largest proposal of the metrics that could be read.
      selectors_[Informer::key_of(hpa)] = selector;
      auto pods = client_.get(kPods.collection(ns), {{"labelSelector", selector}});
      std::vector<ObjectPtr> matched;
      if (pods && at(*pods, {"items"}) != nullptr && (*pods)["items"].is_array()) {
        for (const json& pod : (*pods)["items"]) {
          matched.push_back(std::make_shared<const json>(pod));
        }
      }
      // Pods that another HPA's target selects too: neither may scale them.
      if (auto ambiguous = pods ? ambiguity(hpa, selector, (*pods)["items"]) : std::nullopt) {
        events_.record(hpa, "Warning", "AmbiguousSelector", *ambiguous);
        set("ScalingActive", "False", "AmbiguousSelector", *ambiguous);
        set_current();
        if (!status.contains("desiredReplicas")) {
          status["desiredReplicas"] = 0;
        }
        status.erase("currentMetrics");
        events_.record(hpa, "Warning", "FailedComputeMetricsReplicas", *ambiguous);
        if (auto failed = write_status(hpa, next)) {
          return failed;
        }
        return "failed to compute desired number of replicas based on listed metrics for " +
               reference + ": " + *ambiguous;
      }
      size_t invalid = 0;
      std::optional<MetricFailure> first;
      int64_t replicas = 0;
      for (size_t i = 0; i < total; ++i) {
        statuses.push_back({{"type", ""}});
        const MetricOutcome outcome =
            pods ? evaluate_metric((*metrics)[i], ns, selector, current, matched)
                 : MetricOutcome(metric_failure(
                       (*metrics)[i], "unable to get pods while calculating replica count: " +
                                          pods.error().message));
        if (const auto* failure = std::get_if<MetricFailure>(&outcome)) {
          events_.record(hpa, "Warning", failure->reason, failure->event_message);
          if (invalid++ == 0) {
            first = *failure;
          }
          continue;
        }
        const auto& success = std::get<MetricProposal>(outcome);
        statuses[i] = success.status;
        if (replicas == 0 || success.replicas > replicas) {
          replicas = success.replicas;
          metric_name = success.name;
        }
      }
      if (invalid >= total || (invalid > 0 && replicas < current)) {
        if (first) {
          set("ScalingActive", "False", first->reason.c_str(), first->condition_message);
          error = invalid_metrics_message(invalid, total, first->error);
        }
      } else {
        set("ScalingActive", "True", "ValidMetricFound",
            "the HPA was able to successfully calculate a replica count from " + metric_name);
        proposed = replicas;
      }
    }
    if (proposed < 0) {
      // No count: the status keeps the last desired one, and nothing is scaled.
      if (!selector.empty()) {
        status["currentMetrics"] = statuses;
      }
      set_current();
      if (!status.contains("desiredReplicas")) {
        status["desiredReplicas"] = 0;
      }
      events_.record(hpa, "Warning", "FailedComputeMetricsReplicas", error);
      if (auto failed = write_status(hpa, next)) {
        return failed;
      }
      return "failed to compute desired number of replicas based on listed metrics for " +
             reference + ": " + error;
    }
    desired = proposed;
    if (desired > current) {
      reason = metric_name + " above target";
    } else if (desired < current) {
      reason = "All metrics below target";
    }
    NormalizeInput in;
    in.behavior = at(hpa, {"spec", "behavior"});
    if (in.behavior != nullptr && !in.behavior->is_object()) {
      in.behavior = nullptr;
    }
    in.current = current;
    in.desired = desired;
    in.min_replicas = int_at(hpa, {"spec", "minReplicas"}, 1);
    in.max_replicas = int_at(hpa, {"spec", "maxReplicas"}, 0);
    in.downscale_stabilization = downscale_stabilization_;
    in.now = clock().system_now();
    const Normalized normalized = normalize_replicas(history, in);
    set("AbleToScale", normalized.able_to_scale.status.c_str(),
        normalized.able_to_scale.reason.c_str(), normalized.able_to_scale.message);
    set("ScalingLimited", normalized.scaling_limited.status.c_str(),
        normalized.scaling_limited.reason.c_str(), normalized.scaling_limited.message);
    desired = normalized.replicas;
    status["currentMetrics"] = statuses;
  } else {
    status.erase("currentMetrics");
  }

  if (desired != current) {
    json rescaled = *scale;
    rescaled["spec"]["replicas"] = desired;
    auto written = client_.update(resource->object(ns, target, "scale"), rescaled);
    if (!written) {
      events_.record(hpa, "Warning", "FailedRescale",
                     "New size: " + std::to_string(desired) + "; reason: " + reason +
                         "; error: " + written.error().message);
      set("AbleToScale", "False", "FailedUpdateScale",
          "the HPA controller was unable to update the target scale: " + written.error().message);
      set_current();
      write_status(hpa, next);
      return "failed to rescale " + reference + ": " + written.error().message;
    }
    set("AbleToScale", "True", "SucceededRescale",
        "the HPA controller was able to update the target scale to " + std::to_string(desired));
    events_.record(hpa, "Normal", "SuccessfulRescale",
                   "New size: " + std::to_string(desired) + "; reason: " + reason);
    const json* behavior = at(hpa, {"spec", "behavior"});
    history.record_scale(behavior != nullptr && behavior->is_object() ? behavior : nullptr, current,
                         desired, clock().system_now());
    status["lastScaleTime"] = now;
  }
  set_current();
  status["desiredReplicas"] = desired;
  return write_status(hpa, next);
}

}  // namespace cluster
