#include "authorization/authorizer.h"

#include <algorithm>

#include "authorization/rbac_authorizer.h"
#include "authorization/rule_coverage.h"
#include "common/go_quote.h"

namespace apiserver::authorization {

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::Node:
      return "Node";
    case Mode::RBAC:
      return "RBAC";
    case Mode::AlwaysAllow:
      return "AlwaysAllow";
    case Mode::AlwaysDeny:
      return "AlwaysDeny";
  }
  return "";
}

common::Result<std::vector<Mode>> parse_modes(std::string_view text) {
  using R = common::Result<std::vector<Mode>>;
  std::vector<Mode> modes;
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) {
      comma = text.size();
    }
    std::string name(text.substr(start, comma - start));
    start = comma + 1;
    names.push_back(name);
    bool known = false;
    for (Mode m : {Mode::Node, Mode::RBAC, Mode::AlwaysAllow, Mode::AlwaysDeny}) {
      if (name == mode_name(m)) {
        modes.push_back(m);
        known = true;
      }
    }
    if (!known) {
      if (name == "ABAC" || name == "Webhook") {
        return R::failure("authorization-mode " + common::go_quote(name) +
                          " is not offered by kube-sandbox (Node, RBAC, AlwaysAllow, AlwaysDeny)");
      }
      return R::failure("authorization-mode " + common::go_quote(name) + " is not a valid mode");
    }
  }
  if (modes.empty()) {
    return R::failure("at least one authorization-mode must be passed");
  }
  std::vector<Mode> sorted = modes;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return R::failure("authorization-mode " + go_quote_list(names) +
                      " has mode specified more than once");
  }
  return modes;
}

Authorizer::Authorizer(std::vector<Mode> modes, PolicyCache& policy, NodeAuthorizer& node)
    : modes_(std::move(modes)), policy_(policy), node_(node) {}

bool Authorizer::uses_rbac() const {
  return std::find(modes_.begin(), modes_.end(), Mode::RBAC) != modes_.end();
}

Verdict Authorizer::authorize(const Attributes& attributes) const {
  if (attributes.user.in_group("system:masters")) {
    return {Decision::Allow, "", "", "system:masters"};
  }
  std::vector<std::string> reasons;
  std::vector<std::string> errors;
  for (Mode mode : modes_) {
    Verdict v;
    switch (mode) {
      case Mode::Node:
        v = node_.authorize(attributes);
        break;
      case Mode::RBAC:
        v = rbac_authorize(*policy_.current(), attributes);
        break;
      case Mode::AlwaysAllow:
        v = {Decision::Allow, "", "", ""};
        break;
      case Mode::AlwaysDeny:
        v = {Decision::NoOpinion, "Everything is forbidden.", "", ""};
        break;
    }
    if (v.decision != Decision::NoOpinion) {
      v.by = mode_name(mode);
      return v;
    }
    if (!v.reason.empty()) {
      reasons.push_back(std::move(v.reason));
    }
    if (!v.error.empty()) {
      errors.push_back(std::move(v.error));
    }
  }
  Verdict none;
  for (size_t i = 0; i < reasons.size(); ++i) {
    none.reason += (i > 0 ? "\n" : "") + reasons[i];
  }
  none.error = aggregate_errors(errors);
  return none;
}

RulesReview Authorizer::rules_for(const User& user, const std::string& ns) const {
  RulesReview review;
  std::vector<std::string> errors;
  for (Mode mode : modes_) {
    switch (mode) {
      case Mode::Node: {
        std::string node;
        if (node_identity(user, node)) {
          review.incomplete = true;
          errors.push_back("node authorizer does not support user rule resolution");
        }
        break;
      }
      case Mode::RBAC: {
        UserRules rules = rbac_rules_for(*policy_.current(), user, ns);
        for (auto& rule : rules.rules) {
          if (!rule.resources.empty()) {
            review.resource_rules.push_back(
                {rule.verbs, rule.api_groups, rule.resources, rule.resource_names, {}});
          }
          if (!rule.non_resource_urls.empty()) {
            review.non_resource_rules.push_back({rule.verbs, {}, {}, {}, rule.non_resource_urls});
          }
        }
        errors.insert(errors.end(), rules.errors.begin(), rules.errors.end());
        break;
      }
      case Mode::AlwaysAllow:
        review.resource_rules.push_back({{"*"}, {"*"}, {"*"}, {}, {}});
        review.non_resource_rules.push_back({{"*"}, {}, {}, {}, {"*"}});
        break;
      case Mode::AlwaysDeny:
        break;
    }
  }
  review.evaluation_error = aggregate_errors(errors);
  return review;
}

}  // namespace apiserver::authorization
