#include "authorization/escalation.h"

#include <algorithm>

#include "authorization/rbac_authorizer.h"
#include "authorization/rule_coverage.h"
#include "common/go_quote.h"
#include "registry/json_access.h"

namespace apiserver::authorization {
namespace {

using nlohmann::json;

constexpr const char* kGroup = "rbac.authorization.k8s.io";

errors::Status forbidden(const std::string& resource, const std::string& name,
                         const std::string& why) {
  const std::string qualified = resource + "." + kGroup;
  const std::string message =
      name.empty() ? qualified + " is forbidden: " + why
                   : qualified + " " + common::go_quote(name) + " is forbidden: " + why;
  return errors::failure(403, "Forbidden", message, errors::object_details(name, kGroup, resource));
}

// ConfirmNoEscalation: nullopt when `user` holds every rule of `rules` in `ns`, else why not.
std::optional<std::string> escalation(PolicyCache& policy, const User& user, const std::string& ns,
                                      const std::vector<PolicyRule>& rules) {
  UserRules owned = rbac_rules_for(*policy.current(), user, ns);
  const auto missing = uncovered(owned.rules, rules);
  if (missing.empty()) {
    return std::nullopt;
  }
  std::vector<std::string> described;
  for (const auto& rule : compact_rules(missing)) {
    described.push_back(compact_string(rule));
  }
  std::sort(described.begin(), described.end());
  described.erase(std::unique(described.begin(), described.end()), described.end());
  std::string message = "user " + common::go_quote(user.name) +
                        " (groups=" + go_quote_list(user.groups) +
                        ") is attempting to grant RBAC permissions not currently held:\n";
  for (size_t i = 0; i < described.size(); ++i) {
    message += (i > 0 ? "\n" : "") + described[i];
  }
  if (!owned.errors.empty()) {
    message += "; resolution errors: [" + aggregate_errors(owned.errors) + "]";
  }
  return message;
}

bool allowed(const Authorizer& authorizer, const User& user, const std::string& verb,
             const std::string& group, const std::string& resource, const std::string& ns,
             const std::string& name) {
  Attributes a;
  a.user = user;
  a.verb = verb;
  a.resource_request = true;
  a.group = group;
  a.version = "*";
  a.resource = resource;
  a.namespace_ = ns;
  a.name = name;
  return authorizer.authorize(a).allowed();
}

}  // namespace

bool only_gc_fields(const json& old, const json& object) {
  auto stripped = [](json o) {
    if (o.is_object() && o.contains("metadata") && o["metadata"].is_object()) {
      json& m = o["metadata"];
      for (const char* key : {"ownerReferences", "finalizers", "deletionTimestamp",
                              "deletionGracePeriodSeconds", "resourceVersion", "managedFields"}) {
        m.erase(key);
      }
    }
    return o;
  };
  return stripped(old) == stripped(object);
}

bool guards_escalation(const std::string& group, const std::string& resource) {
  return group == kGroup && (resource == "roles" || resource == "clusterroles" ||
                             resource == "rolebindings" || resource == "clusterrolebindings");
}

std::optional<errors::Status> check_escalation(const Authorizer& authorizer, PolicyCache& policy,
                                               const User& user, const std::string& resource,
                                               const std::string& ns, const std::string& name,
                                               const json* old, const json& object) {
  if (user.in_group("system:masters")) {
    return std::nullopt;
  }
  if (old != nullptr && only_gc_fields(*old, object)) {
    return std::nullopt;
  }
  const std::string object_name =
      registry::string_at(registry::value_at(object, {"metadata"}), {"name"});
  if (resource == "roles" || resource == "clusterroles") {
    if (allowed(authorizer, user, "escalate", kGroup, resource, ns, name)) {
      return std::nullopt;
    }
    if (auto why =
            escalation(policy, user, ns, rules_from_json(registry::value_at(object, {"rules"})))) {
      return forbidden(resource, object_name, *why);
    }
    if (resource == "clusterroles" && !registry::value_at(object, {"aggregationRule"}).is_null()) {
      const std::vector<PolicyRule> everything = {{{"*"}, {"*"}, {"*"}, {}, {}},
                                                  {{"*"}, {}, {}, {}, {"*"}}};
      if (escalation(policy, user, ns, everything)) {
        return forbidden(resource, object_name,
                         "must have cluster-admin privileges to use the aggregationRule");
      }
    }
    return std::nullopt;
  }
  const json& ref = registry::value_at(object, {"roleRef"});
  const std::string kind = registry::string_at(ref, {"kind"});
  const std::string role_resource = kind == "ClusterRole" ? "clusterroles"
                                    : kind == "Role"      ? "roles"
                                                          : "";
  if (!role_resource.empty() &&
      allowed(authorizer, user, "bind", registry::string_at(ref, {"apiGroup"}), role_resource, ns,
              registry::string_at(ref, {"name"}))) {
    return std::nullopt;
  }
  // The role's rules, read as the registry reads them: a missing role is the registry's 404, an
  // unknown kind an internal error (upstream returns both unwrapped).
  auto snapshot = policy.current();
  const std::vector<PolicyRule>* rules = nullptr;
  if (kind == "ClusterRole") {
    auto it = snapshot->cluster_roles.find(registry::string_at(ref, {"name"}));
    if (it != snapshot->cluster_roles.end()) {
      rules = &it->second->rules;
    }
  } else if (kind == "Role") {
    auto in_ns = snapshot->roles.find(ns);
    if (in_ns != snapshot->roles.end()) {
      auto it = in_ns->second.find(registry::string_at(ref, {"name"}));
      if (it != in_ns->second.end()) {
        rules = &it->second->rules;
      }
    }
  } else {
    return errors::internal_error("unsupported role reference kind: " + common::go_quote(kind));
  }
  if (rules == nullptr) {
    const std::string role_name = registry::string_at(ref, {"name"});
    return errors::failure(
        404, "NotFound",
        role_resource + "." + kGroup + " " + common::go_quote(role_name) + " not found",
        errors::object_details(role_name, kGroup, role_resource));
  }
  if (auto why = escalation(policy, user, ns, *rules)) {
    return forbidden(resource, object_name, *why);
  }
  return std::nullopt;
}

}  // namespace apiserver::authorization
