// Whether one set of rules covers another, as RBAC's escalation check and the bootstrap policy's
// reconciliation ask (k8s.io/component-helpers' Covers): each rule of the servant set is broken
// down into single-verb, single-resource, single-name rules, and each of those must be allowed by
// one owner rule on its own. An owner "pods/*"-style wildcard is not a thing; "*/sub" covers the
// subresource `sub` of any resource; a trailing "*" in an owner URL covers the URLs it prefixes.
//
// Example: owner [{verbs: [get, list], apiGroups: [""], resources: [pods]}] covers
// [{verbs: [get], apiGroups: [""], resources: [pods], resourceNames: [web]}] but not
// [{verbs: [get, delete], ...pods}]: the missing rule is {verbs: [delete], ...pods}.
#pragma once

#include <string>
#include <vector>

#include "authorization/policy_rule.h"

namespace apiserver::authorization {

// `rule` as single-verb rules of one group and resource (and one name, when it names some), then
// single-verb rules of one URL.
std::vector<PolicyRule> break_down(const PolicyRule& rule);

// The broken-down rules of `servant` that no rule of `owner` covers (empty: covered).
std::vector<PolicyRule> uncovered(const std::vector<PolicyRule>& owner,
                                  const std::vector<PolicyRule>& servant);

// Merges broken-down rules that name one group and one resource (and at most one name) and
// differ only in their verbs, as upstream's CompactRules does before it reports them; other
// rules stay as they are, first.
std::vector<PolicyRule> compact_rules(const std::vector<PolicyRule>& rules);

// A rule as RBAC's escalation errors print it: {APIGroups:["apps"], Resources:["deployments"],
// Verbs:["get"]} (only the non-empty lists, in that order, each as Go's %q of a []string).
std::string compact_string(const PolicyRule& rule);

// Go's %q of a []string: ["a" "b"].
std::string go_quote_list(const std::vector<std::string>& list);

}  // namespace apiserver::authorization
