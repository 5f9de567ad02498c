#include "authorization/node_authorizer.h"

#include "common/go_quote.h"

namespace apiserver::authorization {
namespace {

Verdict allow() {
  return {Decision::Allow, "", "", ""};
}

Verdict no_opinion(std::string reason = "") {
  return {Decision::NoOpinion, std::move(reason), "", ""};
}

}  // namespace

bool node_identity(const User& user, std::string& node) {
  static constexpr std::string_view kPrefix = "system:node:";
  if (!user.name.starts_with(kPrefix) || !user.in_group("system:nodes")) {
    return false;
  }
  node = user.name.substr(kPrefix.size());
  return true;
}

NodeAuthorizer::NodeAuthorizer(NodeGraph& graph, std::vector<PolicyRule> rules)
    : graph_(graph), rules_(std::move(rules)) {}

Verdict NodeAuthorizer::related(const std::string& node, NodeObject kind,
                                const Attributes& a) const {
  if (a.name.empty()) {
    return no_opinion("No Object name found");
  }
  if (!graph_.related(node, kind, a.namespace_, a.name)) {
    return no_opinion("no relationship found between node '" + node + "' and this object");
  }
  return allow();
}

Verdict NodeAuthorizer::get_only(const std::string& node, NodeObject kind,
                                 const Attributes& a) const {
  if (a.verb != "get") {
    return no_opinion("can only get individual resources of this type");
  }
  if (!a.subresource.empty()) {
    return no_opinion("cannot get subresource");
  }
  return related(node, kind, a);
}

Verdict NodeAuthorizer::read_namespaced(const std::string& node, NodeObject kind,
                                        const Attributes& a) const {
  if (a.verb != "get" && a.verb != "list" && a.verb != "watch") {
    return no_opinion("can only read resources of this type");
  }
  if (!a.subresource.empty()) {
    return no_opinion("cannot read subresource");
  }
  if (a.namespace_.empty()) {
    return no_opinion("can only read namespaced object of this type");
  }
  return related(node, kind, a);
}

Verdict NodeAuthorizer::node_object(const std::string& node, const Attributes& a) const {
  if (a.subresource.empty()) {
    if (a.verb == "create" || a.verb == "update" || a.verb == "patch") {
      return allow();
    }
    if (a.verb == "get" || a.verb == "list" || a.verb == "watch") {
      if (a.name == node) {
        return allow();
      }
      if (a.name.empty()) {
        return no_opinion("node '" + node + "' cannot read all nodes, only its own Node object");
      }
      return no_opinion("node '" + node + "' cannot read '" + a.name +
                        "', only its own Node object");
    }
  } else if (a.subresource == "status" && (a.verb == "update" || a.verb == "patch")) {
    return allow();
  }
  return no_opinion();
}

Verdict NodeAuthorizer::pod(const std::string& node, const Attributes& a) const {
  if (a.subresource.empty()) {
    if (a.verb == "get") {
      return get_only(node, NodeObject::Pod, a);
    }
    if (a.verb == "list" || a.verb == "watch") {
      for (const auto& req : a.field_selector) {
        if (req.field == "spec.nodeName" && req.equals && req.value == node) {
          return allow();
        }
      }
      if (!a.name.empty()) {
        return related(node, NodeObject::Pod, a);
      }
      return no_opinion("can only list/watch pods with spec.nodeName field selector");
    }
    if (a.verb == "create" || a.verb == "delete") {
      return allow();
    }
  } else if (a.subresource == "status") {
    if (a.verb == "update" || a.verb == "patch") {
      return allow();
    }
  } else if (a.subresource == "eviction" && a.verb == "create") {
    return allow();
  }
  return no_opinion();
}

Verdict NodeAuthorizer::authorize(const Attributes& a) const {
  std::string node;
  if (!node_identity(a.user, node)) {
    return no_opinion();
  }
  if (node.empty()) {
    return no_opinion("unknown node for user " + common::go_quote(a.user.name));
  }
  if (a.resource_request) {
    const std::string& g = a.group;
    const std::string& r = a.resource;
    if (g.empty() && r == "secrets") {
      return read_namespaced(node, NodeObject::Secret, a);
    }
    if (g.empty() && r == "configmaps") {
      return read_namespaced(node, NodeObject::ConfigMap, a);
    }
    if (g.empty() && r == "persistentvolumeclaims") {
      if (a.subresource == "status") {
        if (a.verb != "update" && a.verb != "patch") {
          return no_opinion("can only get/update/patch this type");
        }
        return related(node, NodeObject::PersistentVolumeClaim, a);
      }
      return get_only(node, NodeObject::PersistentVolumeClaim, a);
    }
    if (g.empty() && r == "persistentvolumes") {
      return get_only(node, NodeObject::PersistentVolume, a);
    }
    if (g == "resource.k8s.io" && r == "resourceclaims") {
      return get_only(node, NodeObject::ResourceClaim, a);
    }
    if (g == "storage.k8s.io" && r == "volumeattachments") {
      return get_only(node, NodeObject::VolumeAttachment, a);
    }
    if (g.empty() && r == "serviceaccounts") {
      if (a.verb != "create" || a.name.empty()) {
        return no_opinion("can only create tokens for individual service accounts");
      }
      if (a.subresource != "token") {
        return no_opinion("can only create token subresource of serviceaccount");
      }
      return related(node, NodeObject::ServiceAccount, a);
    }
    if (g == "coordination.k8s.io" && r == "leases") {
      const std::string& v = a.verb;
      if (v != "get" && v != "create" && v != "update" && v != "patch" && v != "delete") {
        return no_opinion("can only get, create, update, patch, or delete a node lease");
      }
      if (a.namespace_ != "kube-node-lease") {
        return no_opinion("can only access leases in the \"kube-node-lease\" system namespace");
      }
      if (v != "create" && a.name != node) {
        return no_opinion("can only access node lease with the same name as the requesting node");
      }
      return allow();
    }
    if (g == "storage.k8s.io" && r == "csinodes") {
      const std::string& v = a.verb;
      if (v != "get" && v != "create" && v != "update" && v != "patch" && v != "delete") {
        return no_opinion("can only get, create, update, patch, or delete a CSINode");
      }
      if (!a.subresource.empty()) {
        return no_opinion("cannot authorize CSINode subresources");
      }
      if (v != "create" && a.name != node) {
        return no_opinion("can only access CSINode with the same name as the requesting node");
      }
      return allow();
    }
    if (g.empty() && r == "nodes") {
      return node_object(node, a);
    }
    if (g.empty() && r == "pods") {
      return pod(node, a);
    }
  }
  return rules_allow(a, rules_) ? allow() : no_opinion();
}

}  // namespace apiserver::authorization
