// The node authorizer (kube-apiserver's --authorization-mode=Node): requests of kubelets, users
// system:node:<name> in group system:nodes, as upstream's node authorizer decides them. Secrets,
// config maps, persistent volume claims and volumes, service account tokens, resource claims and
// volume attachments only when the node runs a pod that uses them (NodeGraph); its own Lease and
// CSINode; pods and nodes with the AuthorizeNodeWithSelectors rules of v1.32 (a node reads its own
// Node, lists pods only with the field selector spec.nodeName=<its name>); everything else by the
// system:node ClusterRole's rules. Other users get no opinion.
#pragma once

#include <string>
#include <vector>

#include "authorization/attributes.h"
#include "authorization/node_graph.h"
#include "authorization/policy_rule.h"

namespace apiserver::authorization {

// The node of a user system:node:<name> in group system:nodes; false for anyone else.
bool node_identity(const User& user, std::string& node);

class NodeAuthorizer {
 public:
  // `rules`: the system:node role's rules (bootstrap policy). `graph` must outlive it.
  NodeAuthorizer(NodeGraph& graph, std::vector<PolicyRule> rules);

  Verdict authorize(const Attributes& attributes) const;

 private:
  Verdict related(const std::string& node, NodeObject kind, const Attributes& a) const;
  Verdict get_only(const std::string& node, NodeObject kind, const Attributes& a) const;
  Verdict read_namespaced(const std::string& node, NodeObject kind, const Attributes& a) const;
  Verdict node_object(const std::string& node, const Attributes& a) const;
  Verdict pod(const std::string& node, const Attributes& a) const;

  NodeGraph& graph_;
  const std::vector<PolicyRule> rules_;
};

}  // namespace apiserver::authorization
