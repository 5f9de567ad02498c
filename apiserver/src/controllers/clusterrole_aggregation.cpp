#include "controllers/clusterrole_aggregation.h"

#include "controllers/controller_queue.h"
#include "controllers/controller_request.h"
#include "registry/selectors.h"

namespace apiserver::controllers {
namespace {

using nlohmann::json;

const char* const kServiceAccount = "clusterrole-aggregation-controller";
constexpr int kMaxStartPasses = 8;

}  // namespace

std::vector<authorization::PolicyRule> aggregated_rules(const authorization::Policy& policy,
                                                        const std::string& name,
                                                        const json& aggregation_rule) {
  std::vector<authorization::PolicyRule> rules;
  if (!aggregation_rule.is_object()) {
    return rules;
  }
  auto selectors = aggregation_rule.find("clusterRoleSelectors");
  if (selectors == aggregation_rule.end() || !selectors->is_array()) {
    return rules;
  }
  for (const auto& s : *selectors) {
    auto selector = registry::LabelSelector::from_json(s);
    if (!selector) {
      continue;  // validation refuses such a selector; upstream gives up on the role
    }
    for (const auto& [other, role] : policy.cluster_roles) {  // in name order
      if (other == name || !selector->matches(role->labels)) {
        continue;
      }
      for (const auto& rule : role->rules) {
        if (std::find(rules.begin(), rules.end(), rule) == rules.end()) {
          rules.push_back(rule);
        }
      }
    }
  }
  return rules;
}

ClusterRoleAggregationController::ClusterRoleAggregationController(
    authorization::PolicyCache& policy, Client client, const common::Clock& clock)
    : policy_(policy), client_(std::move(client)), queue_(queue_options(), clock) {
  policy_.on_change([this] { enqueue_aggregated(); });
}

ClusterRoleAggregationController::~ClusterRoleAggregationController() {
  queue_.shutdown();
  if (thread_.joinable()) {
    thread_.join();
  }
}

void ClusterRoleAggregationController::start() {
  // A role may aggregate another aggregated role: passes until one changes nothing (bounded,
  // should the roles' selectors chase each other).
  for (int pass = 0; pass < kMaxStartPasses; ++pass) {
    bool changed = false;
    auto policy = policy_.current();
    for (const auto& entry : policy->cluster_roles) {
      const std::string& name = entry.first;
      if (entry.second->aggregation_rule.is_object()) {
        work_guarded(
            queue_, name,
            {"clusterrole aggregation controller", "aggregate", "clusterrole", "its next change"},
            [this, &name, &changed] { changed = sync(name) || changed; });
      }
    }
    if (!changed) {
      break;
    }
  }
  thread_ = std::thread([this] {
    serve_keys(
        queue_, [] {}, [] {},
        [this](const std::string& name) {
          work_guarded(
              queue_, name,
              {"clusterrole aggregation controller", "aggregate", "clusterrole", "its next change"},
              [&] { sync(name); });
        });
  });
}

void ClusterRoleAggregationController::enqueue_aggregated() {
  auto policy = policy_.snapshot();
  for (const auto& [name, role] : policy->cluster_roles) {
    if (role->aggregation_rule.is_object()) {
      queue_.add(name);
    }
  }
}

bool ClusterRoleAggregationController::sync(const std::string& name) {
  auto policy = policy_.current();
  auto it = policy->cluster_roles.find(name);
  if (it == policy->cluster_roles.end() || !it->second->aggregation_rule.is_object()) {
    return false;
  }
  auto rules = aggregated_rules(*policy, name, it->second->aggregation_rule);
  if (rules == it->second->rules) {
    return false;
  }
  json body = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "ClusterRole"},
               {"metadata", {{"name", name}}},
               {"rules", json::array()}};
  for (const auto& rule : rules) {
    body["rules"].push_back(authorization::rule_to_json(rule));
  }
  const std::string path = "/apis/rbac.authorization.k8s.io/v1/clusterroles/" + name;
  http::Request request = controller_request("PATCH", path, body, kServiceAccount);
  request.target = path + "?fieldManager=" + kServiceAccount + "&force=true";
  request.query = {{"fieldManager", {kServiceAccount}}, {"force", {"true"}}};
  request.headers["Content-Type"] = "application/apply-patch+yaml";
  http::Response response = client_(request);
  if (response.status == 404) {
    return false;  // gone meanwhile
  }
  if (response.status >= 300) {
    throw std::runtime_error("apply answered " + std::to_string(response.status) + ": " +
                             response.body);
  }
  return true;
}

}  // namespace apiserver::controllers
