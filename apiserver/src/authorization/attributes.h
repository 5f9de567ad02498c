// What an authorizer decides on, and what it answers: kube-apiserver's authorizer.Attributes and
// its (decision, reason, error) triple. Plain data; the request pipeline fills the attributes from
// a request's info and its user, the access reviews from the review's spec.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace apiserver::authorization {

// Who asks: the authenticated user's name and groups (uid and extra are not used here).
struct User {
  std::string name;
  std::vector<std::string> groups;

  bool in_group(const std::string& group) const;
};

// One requirement of a field selector ("spec.nodeName=node-1"), as the node authorizer reads it.
struct FieldRequirement {
  std::string field;
  bool equals = true;  // "=" or "==" (false: "!=")
  std::string value;
};

struct Attributes {
  User user;
  std::string verb;  // get, list, watch, create, ... for resources; get, post, put, ... for paths
  bool resource_request = false;
  // A resource request's.
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  std::string namespace_;
  std::string name;
  std::vector<FieldRequirement> field_selector;  // empty when there is none or it did not parse
  // A non-resource request's.
  std::string path;
};

// The requirements of a `fieldSelector` parameter, as fields.ParseSelector reads it: terms split
// at unescaped commas, each "field=value", "field==value" or "field!=value" (values unescaped:
// "\\", "\," and "\="). False when it does not parse (the authorizers then see no selector).
bool parse_field_selector(std::string_view text, std::vector<FieldRequirement>& out);

enum class Decision { NoOpinion, Allow, Deny };

// An authorizer's answer. `reason` explains it (empty when there is nothing to say); `error` is
// an evaluation error that did not stop the decision (a binding naming a missing role).
struct Verdict {
  Decision decision = Decision::NoOpinion;
  std::string reason;
  std::string error;

  // Which authorizer decided, for the request's trace: "Node", "RBAC", ... ("" for no opinion).
  std::string_view by;

  bool allowed() const { return decision == Decision::Allow; }
};

}  // namespace apiserver::authorization
