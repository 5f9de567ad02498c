// kube-controller-manager's ClusterRole aggregation controller: a ClusterRole with an
// aggregationRule gets the rules of every other ClusterRole its selectors match (in name order,
// each distinct rule once), and keeps them as those roles come, go and change. admin, edit and
// view are built this way from system:aggregate-to-*, and a CRD's author extends them by
// labelling a role rbac.authorization.k8s.io/aggregate-to-view: "true".
//
// It follows the RBAC objects through the authorizers' policy cache (a change of any ClusterRole
// looks at every aggregated one again) and writes through the whole request pipeline as upstream
// does: server-side apply with field manager clusterrole-aggregation-controller, as
// system:serviceaccount:kube-system:clusterrole-aggregation-controller, whose bootstrap role
// holds the escalate verb on clusterroles. One thread, with a common::WorkQueue of role names.
#pragma once

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/http.h"
#include "authorization/policy_cache.h"
#include "authorization/policy_rule.h"
#include "common/clock.h"
#include "common/work_queue.h"

namespace apiserver::controllers {

// The rules an aggregated role `name` should have: those of every ClusterRole of `policy` that a
// selector of `aggregation_rule` matches, other than itself, in selector then name order, each
// distinct rule once. Pure.
std::vector<authorization::PolicyRule> aggregated_rules(const authorization::Policy& policy,
                                                        const std::string& name,
                                                        const nlohmann::json& aggregation_rule);

class ClusterRoleAggregationController {
 public:
  using Client = std::function<http::Response(http::Request&)>;

  // Registers with `policy` (before it starts). `policy` must outlive the controller.
  ClusterRoleAggregationController(authorization::PolicyCache& policy, Client client,
                                   const common::Clock& clock = common::Clock::real());
  ~ClusterRoleAggregationController();

  // Aggregates every role now, on the caller's thread, until nothing changes (admin aggregates
  // edit, which aggregates view: all three are whole before the server turns ready), then
  // follows changes on the controller's thread.
  void start();
  const common::WorkQueue& queue() const { return queue_; }

 private:
  void enqueue_aggregated();
  // Brings one role's rules up to date; true when it wrote them.
  bool sync(const std::string& name);

  authorization::PolicyCache& policy_;
  Client client_;
  common::WorkQueue queue_;
  std::thread thread_;
};

}  // namespace apiserver::controllers
