// pods/eviction: a delete that respects PodDisruptionBudgets, as kube-apiserver's EvictionREST.
// The pod's budget (at most one may select it) must allow a disruption: then its
// disruptionsAllowed goes down by one and the pod is recorded in disruptedPods (both in the
// budget's status, so the next eviction sees them before the disruption controller recounts),
// the pod gets the DisruptionTarget condition, and it is deleted with the eviction's
// DeleteOptions. Otherwise 429 TooManyRequests, which `kubectl drain` retries. Pods that are not
// running (Pending, Succeeded, Failed) go without asking the budget.
#include "endpoints/admission_request.h"
#include "endpoints/collection.h"
#include "endpoints/field_checks.h"
#include "endpoints/object_answers.h"
#include "endpoints/resources.h"
#include "registry/json_access.h"
#include "registry/objects.h"
#include "registry/selectors.h"

namespace apiserver::endpoints {

using nlohmann::json;
using registry::Resource;
using registry::string_at;

namespace {

errors::Status too_many_requests(const std::string& message,
                                 std::vector<errors::Cause> causes = {}) {
  errors::Details details;
  details.causes = std::move(causes);
  return errors::failure(429, "TooManyRequests", message, details);
}

}  // namespace

http::Response ResourceHandler::evict(const Resource& r, const RequestInfo& info,
                                      const http::Request& request,
                                      const registry::Snapshot& snapshot) {
  const Resource* budgets = snapshot.find("policy", "v1", "poddisruptionbudgets");
  if (budgets == nullptr) {
    return errors::no_route().response();
  }
  // The body is a policy/v1 Eviction.
  Resource eviction = r;
  eviction.group = "policy";
  eviction.version = "v1";
  eviction.kind = "Eviction";
  auto body = decode_checked_body(request, eviction, *field_validator_);
  if (!body) {
    return body.error().response();
  }
  if (string_at(body->object, {"metadata", "name"}) != info.name) {
    return errors::bad_request("name in URL does not match name in Eviction object").response();
  }
  AdmissionRequest admission(admission_, r, info, request, admission::Operation::Create,
                             "CreateOptions", request.has_query("dryRun"));
  if (auto refused = admission.admit_body(body->object)) {
    return refused->response();
  }
  storage::Object stored;
  if (auto error = storage_.get(r.storage_key(info.namespace_, info.name), stored)) {
    return storage_failure(r, info.name, error);
  }
  json pod = json::parse(stored.value, nullptr, false);
  const std::string phase = string_at(pod, {"status", "phase"});
  const bool ask_budget = phase == "Running" || phase.empty() || phase == "Unknown";
  if (ask_budget) {
    storage::ListResult listed;
    if (auto e = storage_.list(list_prefix(*budgets, info.namespace_), "", 0, 0, listed)) {
      return storage_failure(*budgets, "", e);
    }
    const json* labels = registry::find_path(pod, {"metadata", "labels"});
    const json no_labels = json::object();
    std::vector<std::pair<json, const storage::Object*>> matching;
    for (const storage::Object& item : listed.items) {
      json budget = json::parse(item.value, nullptr, false);
      const json* selector = registry::find_path(budget, {"spec", "selector"});
      if (selector == nullptr)
        continue;
      auto parsed = registry::LabelSelector::from_json(*selector);
      if (parsed && parsed->matches(labels != nullptr ? *labels : no_labels)) {
        matching.emplace_back(std::move(budget), &item);
      }
    }
    if (matching.size() > 1) {
      return errors::internal_error(
                 "This pod has more than one PodDisruptionBudget, which the eviction subresource "
                 "does not support.")
          .response();
    }
    if (matching.size() == 1) {
      json& budget = matching[0].first;
      json& status = budget["status"];
      const int64_t allowed =
          registry::integer_at(budget, {"status", "disruptionsAllowed"}).value_or(0);
      if (registry::integer_at(budget, {"status", "observedGeneration"}).value_or(0) <
          registry::integer_at(budget, {"metadata", "generation"}).value_or(0)) {
        return too_many_requests(
                   "Cannot evict pod as it would violate the pod's disruption budget.",
                   {{"DisruptionBudget",
                     "The disruption budget " + string_at(budget, {"metadata", "name"}) +
                         " is still being processed by the server.",
                     ""}})
            .response();
      }
      if (allowed <= 0) {
        return too_many_requests(
                   "Cannot evict pod as it would violate the pod's disruption budget.",
                   {{"DisruptionBudget",
                     "The disruption budget " + string_at(budget, {"metadata", "name"}) +
                         " needs " +
                         std::to_string(registry::integer_at(budget, {"status", "desiredHealthy"})
                                            .value_or(0)) +
                         " healthy pods and has " +
                         std::to_string(registry::integer_at(budget, {"status", "currentHealthy"})
                                            .value_or(0)) +
                         " currently",
                     ""}})
            .response();
      }
      status["disruptionsAllowed"] = allowed - 1;
      status["disruptedPods"][info.name] = registry::rfc3339(clock_.system_now());
      auto written = store_->update(*budgets, {.namespace_ = info.namespace_,
                                               .name = string_at(budget, {"metadata", "name"}),
                                               .subresource = "status",
                                               .object = budget,
                                               .current = matching[0].second,
                                               .dry_run = request.has_query("dryRun"),
                                               .own = nullptr,
                                               .raced = nullptr,
                                               .admit = nullptr,
                                               .admission = {}});
      if (!written) {
        // Another eviction got there first: the caller retries, as on upstream's conflict.
        return too_many_requests(
                   "Cannot evict pod as it would violate the pod's disruption budget.")
            .response();
      }
    }
  }
  // Delete with the eviction's options.
  http::Request remove_request;
  remove_request.method = "DELETE";
  remove_request.user = request.user;
  remove_request.groups = request.groups;
  if (const json* options = registry::find_path(body->object, {"deleteOptions"})) {
    remove_request.body = options->dump();
    remove_request.headers["Content-Type"] = "application/json";
  }
  if (request.has_query("dryRun")) {
    remove_request.query["dryRun"] = request.query.at("dryRun");
  }
  RequestInfo pod_info = info;
  pod_info.subresource.clear();
  pod_info.verb = "delete";
  http::Response removed = remove(r, pod_info, remove_request);
  if (removed.status >= 300) {
    return removed;
  }
  http::Response answer;
  answer.status = 201;
  answer.set_header("Content-Type", "application/json");
  answer.body = json{
      {"kind", "Status"},
      {"apiVersion", "v1"},
      {"metadata", json::object()},
      {"status",
       "Success"}}.dump();
  add_warnings(answer, with_admission_warnings({}, admission));
  return answer;
}

}  // namespace apiserver::endpoints
