// kube-apiserver's authorizer chain: the privileged group system:masters first (always allowed,
// as the API server's own loopback user is), then each --authorization-mode in the order given.
// The first authorizer that allows or denies decides; when none does, the request is refused
// with the reasons they gave, one per line. Modes: Node, RBAC, AlwaysAllow, AlwaysDeny (ABAC and
// Webhook are not offered). The default is "Node,RBAC".
//
// Threads: authorize() and rules_for() from any thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "authorization/attributes.h"
#include "authorization/node_authorizer.h"
#include "authorization/policy_cache.h"
#include "common/result.h"

namespace apiserver::authorization {

enum class Mode { Node, RBAC, AlwaysAllow, AlwaysDeny };

inline constexpr std::string_view kDefaultModes = "Node,RBAC";

// A comma-separated --authorization-mode value, with kube-apiserver's errors (e.g.
// `authorization-mode "ABAC" is not a valid mode`).
common::Result<std::vector<Mode>> parse_modes(std::string_view text);
std::string_view mode_name(Mode mode);

// What a SelfSubjectRulesReview reports: the rules the authorizers can list for a user in a
// namespace, whether the list is incomplete (an authorizer cannot enumerate them, as the node
// authorizer for nodes), and the errors met.
struct RulesReview {
  std::vector<PolicyRule> resource_rules;
  std::vector<PolicyRule> non_resource_rules;
  bool incomplete = false;
  std::string evaluation_error;
};

class Authorizer {
 public:
  // `policy` feeds RBAC, `node` the Node mode; both must outlive the chain.
  Authorizer(std::vector<Mode> modes, PolicyCache& policy, NodeAuthorizer& node);

  Verdict authorize(const Attributes& attributes) const;
  RulesReview rules_for(const User& user, const std::string& ns) const;
  const std::vector<Mode>& modes() const { return modes_; }
  // Whether RBAC is one of the modes (then RBAC's objects are consulted for escalation checks).
  bool uses_rbac() const;

 private:
  const std::vector<Mode> modes_;
  PolicyCache& policy_;
  NodeAuthorizer& node_;
};

}  // namespace apiserver::authorization
