#include "audit/policy.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <exception>

#include "registry/go_text.h"
#include "registry/name_scanners.h"

namespace apiserver::audit {
namespace {

constexpr std::array<std::string_view, 4> kLevels = {"None", "Metadata", "Request",
                                                     "RequestResponse"};
constexpr std::array<std::string_view, 4> kStages = {"RequestReceived", "ResponseStarted",
                                                     "ResponseComplete", "Panic"};

// A decoding failure: the text after "failed decoding: ".
struct DecodeError {
  std::string message;
};

// Go's name for a YAML node's kind in json.Unmarshal's type errors.
std::string go_kind(const YAML::Node& node) {
  if (node.IsSequence()) {
    return "array";
  }
  if (node.IsMap()) {
    return "object";
  }
  return "string";
}

void type_error(const YAML::Node& node, const std::string& field, const std::string& type) {
  throw DecodeError{"json: cannot unmarshal " + go_kind(node) + " into Go struct field " + field +
                    " of type " + type};
}

std::string scalar(const YAML::Node& node, const std::string& field) {
  if (node.IsNull()) {
    return "";
  }
  if (!node.IsScalar()) {
    type_error(node, field, "string");
  }
  return node.Scalar();
}

std::vector<std::string> strings(const YAML::Node& node, const std::string& field) {
  std::vector<std::string> out;
  if (!node || node.IsNull()) {
    return out;
  }
  if (!node.IsSequence()) {
    type_error(node, field, "[]string");
  }
  for (const auto& item : node) {
    out.push_back(scalar(item, field));
  }
  return out;
}

// Stages and levels keep their text until validation, which names the wrong ones.
struct RawRule {
  std::string level;
  std::vector<std::string> omit_stages;
  PolicyRule rule;
};

GroupResources group_resources(const YAML::Node& node) {
  if (!node.IsMap()) {
    type_error(node, "PolicyRule.rules.resources", "v1.GroupResources");
  }
  GroupResources out;
  if (node["group"]) {
    out.group = scalar(node["group"], "GroupResources.rules.resources.group");
  }
  out.resources = strings(node["resources"], "GroupResources.rules.resources.resources");
  out.resource_names =
      strings(node["resourceNames"], "GroupResources.rules.resources.resourceNames");
  return out;
}

std::optional<bool> boolean(const YAML::Node& node, const std::string& field) {
  if (!node || node.IsNull()) {
    return std::nullopt;
  }
  if (node.IsScalar() && (node.Scalar() == "true" || node.Scalar() == "false")) {
    return node.Scalar() == "true";
  }
  type_error(node, field, "bool");
  return std::nullopt;
}

RawRule raw_rule(const YAML::Node& node) {
  if (!node.IsMap()) {
    type_error(node, "Policy.rules", "v1.PolicyRule");
  }
  RawRule raw;
  if (node["level"]) {
    raw.level = scalar(node["level"], "PolicyRule.rules.level");
  }
  PolicyRule& r = raw.rule;
  r.users = strings(node["users"], "PolicyRule.rules.users");
  r.user_groups = strings(node["userGroups"], "PolicyRule.rules.userGroups");
  r.verbs = strings(node["verbs"], "PolicyRule.rules.verbs");
  r.namespaces = strings(node["namespaces"], "PolicyRule.rules.namespaces");
  r.non_resource_urls = strings(node["nonResourceURLs"], "PolicyRule.rules.nonResourceURLs");
  raw.omit_stages = strings(node["omitStages"], "PolicyRule.rules.omitStages");
  r.omit_managed_fields = boolean(node["omitManagedFields"], "PolicyRule.rules.omitManagedFields");
  if (const YAML::Node resources = node["resources"]; resources && !resources.IsNull()) {
    if (!resources.IsSequence()) {
      type_error(resources, "PolicyRule.rules.resources", "[]v1.GroupResources");
    }
    for (const auto& item : resources) {
      r.resources.push_back(group_resources(item));
    }
  }
  return raw;
}

// Go's %#v of a []string, as field.Invalid prints a list value.
std::string go_string_slice(const std::vector<std::string>& values) {
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i ? ", " : "") + registry::go_quote(values[i]);
  }
  return out + "}";
}

std::string supported(const std::array<std::string_view, 4>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i ? ", " : "") + registry::go_quote(std::string(values[i]));
  }
  return out;
}

template <class E>
std::optional<E> parse_enum(const std::string& text, const std::array<std::string_view, 4>& names) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (text == names[i]) {
      return static_cast<E>(i);
    }
  }
  return std::nullopt;
}

void check_stages(const std::vector<std::string>& texts, const std::string& path,
                  std::vector<Stage>& out, std::vector<std::string>& errors) {
  std::string allowed;
  for (size_t i = 0; i < kStages.size(); ++i) {
    allowed += (i ? "," : "") + std::string(kStages[i]);
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    if (auto stage = parse_enum<Stage>(texts[i], kStages)) {
      out.push_back(*stage);
    } else {
      errors.push_back(path + "[" + std::to_string(i) + "]: Invalid value: " +
                       registry::go_quote(texts[i]) + ": allowed stages are " + allowed);
    }
  }
}

void check_rule(RawRule& raw, const std::string& path, std::vector<std::string>& errors) {
  PolicyRule& r = raw.rule;
  if (raw.level.empty()) {
    errors.push_back(path + ".level: Required value");
  } else if (auto level = parse_enum<Level>(raw.level, kLevels)) {
    r.level = *level;
  } else {
    errors.push_back(path + ".level: Unsupported value: " + registry::go_quote(raw.level) +
                     ": supported values: " + supported(kLevels));
  }
  for (size_t i = 0; i < r.non_resource_urls.size(); ++i) {
    const std::string& url = r.non_resource_urls[i];
    if (url == "*") {
      continue;
    }
    const std::string at = path + ".nonResourceURLs[" + std::to_string(i) +
                           "]: Invalid value: " + registry::go_quote(url) + ": ";
    if (url.empty() || url.front() != '/') {
      errors.push_back(at + "non-resource URL rules must begin with a '/' character");
    }
    if (!url.empty() && url.substr(0, url.size() - 1).find('*') != std::string::npos) {
      errors.push_back(at +
                       "non-resource URL wildcards '*' must be the final character of the rule");
    }
  }
  for (const auto& gr : r.resources) {
    if (!gr.group.empty()) {
      auto problems = registry::dns1123_subdomain_problems(gr.group);
      if (!problems.empty()) {
        std::string joined;
        for (size_t i = 0; i < problems.size(); ++i) {
          joined += (i ? "," : "") + problems[i];
        }
        errors.push_back(path + ".resources.group: Invalid value: " + registry::go_quote(gr.group) +
                         ": " + joined);
      }
    }
    if (!gr.resource_names.empty() && gr.resources.empty()) {
      errors.push_back(
          path + ".resources.resourceNames: Invalid value: " + go_string_slice(gr.resource_names) +
          ": using resourceNames requires at least one resource");
    }
  }
  check_stages(raw.omit_stages, path + ".omitStages", r.omit_stages, errors);
  if (!r.non_resource_urls.empty() && (!r.resources.empty() || !r.namespaces.empty())) {
    errors.push_back(path +
                     ".nonResourceURLs: Invalid value: " + go_string_slice(r.non_resource_urls) +
                     ": rules cannot apply to both regular resources and non-resource URLs");
  }
}

common::Result<Policy> decode(std::string_view text) {
  using Failure = common::Result<Policy>;
  YAML::Node doc;
  try {
    doc = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Failure::failure("failed decoding: error converting YAML to JSON: yaml: " + e.msg);
  }
  if (!doc.IsMap()) {
    return Failure::failure("failed decoding: Object 'Kind' is missing in '" + std::string(text) +
                            "'");
  }
  Policy policy;
  std::vector<RawRule> rules;
  std::vector<std::string> omit_stages;
  std::string api_version;
  std::string kind;
  try {
    if (doc["apiVersion"]) {
      api_version = scalar(doc["apiVersion"], "Policy.apiVersion");
    }
    if (doc["kind"]) {
      kind = scalar(doc["kind"], "Policy.kind");
    }
    if (kind.empty()) {
      throw DecodeError{"Object 'Kind' is missing in '" + std::string(text) + "'"};
    }
    if (api_version.empty()) {
      throw DecodeError{"Object 'apiVersion' is missing in '" + std::string(text) + "'"};
    }
    if (kind != "Policy" || api_version != "audit.k8s.io/v1") {
      throw DecodeError{"no kind " + registry::go_quote(kind) + " is registered for version " +
                        registry::go_quote(api_version) + " in scheme " +
                        registry::go_quote("pkg/audit/scheme.go:30")};
    }
    if (const YAML::Node list = doc["rules"]; list && !list.IsNull()) {
      if (!list.IsSequence()) {
        type_error(list, "Policy.rules", "[]v1.PolicyRule");
      }
      for (const auto& item : list) {
        rules.push_back(raw_rule(item));
      }
    }
    omit_stages = strings(doc["omitStages"], "Policy.omitStages");
    policy.omit_managed_fields =
        boolean(doc["omitManagedFields"], "Policy.omitManagedFields").value_or(false);
  } catch (const DecodeError& e) {
    return Failure::failure("failed decoding: " + e.message);
  } catch (const YAML::Exception& e) {
    return Failure::failure("failed decoding: " + e.msg);
  }
  std::vector<std::string> errors;
  check_stages(omit_stages, "omitStages", policy.omit_stages, errors);
  for (size_t i = 0; i < rules.size(); ++i) {
    check_rule(rules[i], "rules[" + std::to_string(i) + "]", errors);
    policy.rules.push_back(std::move(rules[i].rule));
  }
  if (errors.size() == 1) {
    return Failure::failure(errors.front());
  }
  if (!errors.empty()) {
    // An aggregate of several errors, as apimachinery writes it.
    std::string all = "[";
    for (size_t i = 0; i < errors.size(); ++i) {
      all += (i ? ", " : "") + errors[i];
    }
    return Failure::failure(all + "]");
  }
  if (policy.rules.empty()) {
    return Failure::failure("loaded illegal policy with 0 rules");
  }
  return policy;
}

bool has(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool path_matches(const std::string& path, const std::string& spec) {
  if (spec == "*" || spec == path) {
    return true;
  }
  if (!spec.empty() && spec.back() == '*') {
    const std::string prefix = spec.substr(0, spec.find_last_not_of('*') + 1);
    return path.starts_with(prefix);
  }
  return false;
}

bool matches_resource(const PolicyRule& r, const Attributes& a) {
  if (!a.resource_request) {
    return false;
  }
  if (!r.namespaces.empty() && !has(r.namespaces, a.namespace_)) {
    return false;  // a cluster-scoped resource's namespace is ""
  }
  if (r.resources.empty()) {
    return true;
  }
  const std::string combined =
      a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  for (const auto& gr : r.resources) {
    if (gr.group != a.group) {
      continue;
    }
    if (gr.resources.empty()) {
      return true;
    }
    if (!gr.resource_names.empty() && !has(gr.resource_names, a.name)) {
      continue;
    }
    for (const auto& res : gr.resources) {
      if (res == combined || res == "*") {
        return true;
      }
      if (!a.subresource.empty() && res.starts_with("*/") && res.substr(2) == a.subresource) {
        return true;
      }
      // "pods/*": the resource itself and every subresource of it.
      if (res.ends_with("/*") && res.substr(0, res.size() - 2) == a.resource) {
        return true;
      }
    }
  }
  return false;
}

bool rule_matches(const PolicyRule& r, const Attributes& a) {
  if (!r.users.empty() && !has(r.users, a.user.name)) {
    return false;
  }
  if (!r.user_groups.empty() &&
      std::none_of(a.user.groups.begin(), a.user.groups.end(),
                   [&r](const std::string& g) { return has(r.user_groups, g); })) {
    return false;
  }
  if (!r.verbs.empty() && !has(r.verbs, a.verb)) {
    return false;
  }
  if (!r.namespaces.empty() || !r.resources.empty()) {
    return matches_resource(r, a);
  }
  if (!r.non_resource_urls.empty()) {
    return !a.resource_request &&
           std::any_of(r.non_resource_urls.begin(), r.non_resource_urls.end(),
                       [&a](const std::string& spec) { return path_matches(a.path, spec); });
  }
  return true;
}

}  // namespace

std::string_view level_name(Level level) {
  return kLevels[static_cast<size_t>(level)];
}

std::string_view stage_name(Stage stage) {
  return kStages[static_cast<size_t>(stage)];
}

bool RequestConfig::omits(Stage stage) const {
  return std::find(omit_stages.begin(), omit_stages.end(), stage) != omit_stages.end();
}

common::Result<Policy> parse_policy(std::string_view text, const std::string& path) {
  auto policy = decode(text);
  if (!policy) {
    return common::Result<Policy>::failure(policy.error() + ": from file " + path);
  }
  return policy;
}

RequestConfig evaluate(const Policy& policy, const Attributes& attributes) {
  RequestConfig config;
  for (const auto& rule : policy.rules) {
    if (!rule_matches(rule, attributes)) {
      continue;
    }
    config.level = rule.level;
    config.omit_stages = policy.omit_stages;
    config.omit_stages.insert(config.omit_stages.end(), rule.omit_stages.begin(),
                              rule.omit_stages.end());
    config.omit_managed_fields = rule.omit_managed_fields.value_or(policy.omit_managed_fields);
    return config;
  }
  return config;
}

}  // namespace apiserver::audit
