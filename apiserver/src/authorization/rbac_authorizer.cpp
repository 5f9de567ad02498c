#include "authorization/rbac_authorizer.h"

#include <algorithm>

#include "common/go_quote.h"

namespace apiserver::authorization {
namespace {

using common::go_quote;

// The rules of what `ref` names, or the error that says why there are none (the messages of
// upstream's listers).
const std::vector<PolicyRule>* role_rules(const Policy& policy, const RoleRef& ref,
                                          const std::string& binding_ns, std::string& error) {
  if (ref.kind == "ClusterRole") {
    auto it = policy.cluster_roles.find(ref.name);
    if (it != policy.cluster_roles.end()) {
      return &it->second->rules;
    }
    error = "clusterrole.rbac.authorization.k8s.io " + go_quote(ref.name) + " not found";
    return nullptr;
  }
  if (ref.kind == "Role") {
    auto ns = policy.roles.find(binding_ns);
    if (ns != policy.roles.end()) {
      auto it = ns->second.find(ref.name);
      if (it != ns->second.end()) {
        return &it->second->rules;
      }
    }
    error = "role.rbac.authorization.k8s.io " + go_quote(ref.name) + " not found";
    return nullptr;
  }
  error = "unsupported role reference kind: " + go_quote(ref.kind);
  return nullptr;
}

// Visits the bindings of one map; false when the visitor stopped.
bool visit_bindings(
    const Policy& policy, const Policy::Bindings& bindings, const User& user, const std::string& ns,
    const std::function<bool(const RuleSource&, const PolicyRule*, const std::string*)>& visit) {
  for (const auto& [name, binding] : bindings) {
    const Subject* matched = nullptr;
    for (const auto& subject : binding->subjects) {
      if (subject_matches(subject, user, ns)) {
        matched = &subject;
        break;
      }
    }
    if (matched == nullptr) {
      continue;
    }
    std::string error;
    const auto* rules = role_rules(policy, binding->role_ref, ns, error);
    RuleSource source{binding.get(), matched};
    if (rules == nullptr) {
      if (!visit(source, nullptr, &error)) {
        return false;
      }
      continue;
    }
    for (const auto& rule : *rules) {
      if (!visit(source, &rule, nullptr)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

bool subject_matches(const Subject& subject, const User& user, const std::string& binding_ns) {
  if (subject.kind == "User") {
    return user.name == subject.name;
  }
  if (subject.kind == "Group") {
    return user.in_group(subject.name);
  }
  if (subject.kind == "ServiceAccount") {
    const std::string& ns = subject.namespace_.empty() ? binding_ns : subject.namespace_;
    if (ns.empty()) {
      return false;
    }
    static constexpr std::string_view kPrefix = "system:serviceaccount:";
    std::string_view name = user.name;
    if (!name.starts_with(kPrefix)) {
      return false;
    }
    name.remove_prefix(kPrefix.size());
    if (!name.starts_with(ns)) {
      return false;
    }
    name.remove_prefix(ns.size());
    return name.starts_with(':') && name.substr(1) == subject.name;
  }
  return false;
}

std::string RuleSource::describe() const {
  const bool cluster = binding->namespace_.empty();
  std::string who;
  if (subject->kind == "ServiceAccount") {
    const std::string& ns = subject->namespace_.empty() ? binding->namespace_ : subject->namespace_;
    who = subject->kind + " " + go_quote(subject->name + "/" + ns);
  } else {
    who = subject->kind + " " + go_quote(subject->name);
  }
  return (cluster ? "ClusterRoleBinding " + go_quote(binding->name)
                  : "RoleBinding " + go_quote(binding->name + "/" + binding->namespace_)) +
         " of " + binding->role_ref.kind + " " + go_quote(binding->role_ref.name) + " to " + who;
}

void visit_rules(
    const Policy& policy, const User& user, const std::string& ns,
    const std::function<bool(const RuleSource&, const PolicyRule*, const std::string*)>& visit) {
  if (!visit_bindings(policy, policy.cluster_role_bindings, user, "", visit)) {
    return;
  }
  if (ns.empty()) {
    return;
  }
  auto it = policy.role_bindings.find(ns);
  if (it != policy.role_bindings.end()) {
    visit_bindings(policy, it->second, user, ns, visit);
  }
}

std::string aggregate_errors(const std::vector<std::string>& errors) {
  std::vector<std::string> distinct;
  for (const auto& e : errors) {
    if (std::find(distinct.begin(), distinct.end(), e) == distinct.end()) {
      distinct.push_back(e);
    }
  }
  if (distinct.empty()) {
    return "";
  }
  if (distinct.size() == 1) {
    return distinct[0];
  }
  std::string out = "[";
  for (size_t i = 0; i < distinct.size(); ++i) {
    out += (i > 0 ? ", " : "") + distinct[i];
  }
  return out + "]";
}

Verdict rbac_authorize(const Policy& policy, const Attributes& attributes) {
  Verdict verdict;
  std::vector<std::string> errors;
  visit_rules(policy, attributes.user, attributes.namespace_,
              [&](const RuleSource& source, const PolicyRule* rule, const std::string* error) {
                if (rule != nullptr && rule_allows(attributes, *rule)) {
                  verdict.decision = Decision::Allow;
                  verdict.reason = "RBAC: allowed by " + source.describe();
                  return false;
                }
                if (error != nullptr) {
                  errors.push_back(*error);
                }
                return true;
              });
  if (verdict.decision != Decision::Allow && !errors.empty()) {
    verdict.reason = "RBAC: " + aggregate_errors(errors);
  }
  return verdict;
}

UserRules rbac_rules_for(const Policy& policy, const User& user, const std::string& ns) {
  UserRules out;
  visit_rules(policy, user, ns,
              [&](const RuleSource&, const PolicyRule* rule, const std::string* error) {
                if (rule != nullptr) {
                  out.rules.push_back(*rule);
                }
                if (error != nullptr) {
                  out.errors.push_back(*error);
                }
                return true;
              });
  return out;
}

}  // namespace apiserver::authorization
