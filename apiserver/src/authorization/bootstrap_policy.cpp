#include "authorization/bootstrap_policy.h"

#include "apiserver/facts.h"
#include "authorization/rule_coverage.h"
#include "registry/json_access.h"

namespace apiserver::authorization {
namespace {

using nlohmann::json;

constexpr const char* kAutoUpdate = "rbac.authorization.kubernetes.io/autoupdate";

bool is_protected(const json& existing) {
  const json& value = registry::value_at(
      registry::value_at(registry::value_at(existing, {"metadata"}), {"annotations"}),
      {kAutoUpdate});
  return value.is_string() && value.get<std::string>() == "false";
}

// The expected labels or annotations merged under the existing ones (existing values win).
// True when that changed them.
bool merge_metadata(json& result, const json& expected, const char* key) {
  const json& wanted = registry::value_at(registry::value_at(expected, {"metadata"}), {key});
  if (!wanted.is_object() || wanted.empty()) {
    return false;
  }
  json& meta = result["metadata"];
  json& have = meta[key];
  if (!have.is_object()) {
    have = json::object();
  }
  bool changed = false;
  for (const auto& [k, v] : wanted.items()) {
    if (!have.contains(k)) {
      have[k] = v;
      changed = true;
    }
  }
  return changed;
}

std::vector<json> selectors(const json& object) {
  std::vector<json> out;
  const json& list =
      registry::value_at(registry::value_at(object, {"aggregationRule"}), {"clusterRoleSelectors"});
  if (list.is_array()) {
    out.assign(list.begin(), list.end());
  }
  return out;
}

json subjects_of(const json& object) {
  const json& list = registry::value_at(object, {"subjects"});
  return list.is_array() ? list : json::array();
}

// Subjects compare as their four fields (apiGroup "" and absent are the same).
bool same_subject(const json& a, const json& b) {
  for (const char* key : {"kind", "apiGroup", "name", "namespace"}) {
    const json& x = registry::value_at(a, {key});
    const json& y = registry::value_at(b, {key});
    const std::string xs = x.is_string() ? x.get<std::string>() : "";
    const std::string ys = y.is_string() ? y.get<std::string>() : "";
    if (xs != ys) {
      return false;
    }
  }
  return true;
}

}  // namespace

const json& bootstrap_policy() {
  static const json policy = json::parse(facts::bootstrap_policy_json());
  return policy;
}

std::vector<PolicyRule> node_rules() {
  for (const auto& role : bootstrap_policy().at("clusterRoles")) {
    if (role.at("metadata").at("name") == "system:node") {
      return rules_from_json(role.at("rules"));
    }
  }
  return {};
}

Reconciled reconcile_role(const json* existing, const json& expected) {
  if (existing == nullptr) {
    return {Reconciled::Op::Create, expected};
  }
  Reconciled result{Reconciled::Op::None, *existing};
  bool changed = merge_metadata(result.object, expected, "annotations");
  changed = merge_metadata(result.object, expected, "labels") || changed;
  const auto missing = uncovered(rules_from_json(registry::value_at(*existing, {"rules"})),
                                 rules_from_json(registry::value_at(expected, {"rules"})));
  if (!missing.empty()) {
    json& rules = result.object["rules"];
    if (!rules.is_array()) {
      rules = json::array();
    }
    for (const auto& rule : missing) {
      rules.push_back(rule_to_json(rule));
    }
    changed = true;
  }
  const auto want = selectors(expected);
  const auto have = selectors(*existing);
  if (!expected.contains("aggregationRule") && existing->contains("aggregationRule")) {
    result.object.erase("aggregationRule");
    changed = true;
  } else {
    std::vector<json> lacking;
    for (const auto& s : want) {
      if (std::find(have.begin(), have.end(), s) == have.end()) {
        lacking.push_back(s);
      }
    }
    if (!lacking.empty()) {
      json& list = result.object["aggregationRule"]["clusterRoleSelectors"];
      if (!list.is_array()) {
        list = json::array();
      }
      for (auto& s : lacking) {
        list.push_back(std::move(s));
      }
      changed = true;
    }
  }
  if (!changed || is_protected(*existing)) {
    return {};
  }
  result.op = Reconciled::Op::Update;
  return result;
}

Reconciled reconcile_binding(const json* existing, const json& expected) {
  if (existing == nullptr) {
    return {Reconciled::Op::Create, expected};
  }
  Reconciled result{Reconciled::Op::None, *existing};
  bool changed = merge_metadata(result.object, expected, "annotations");
  changed = merge_metadata(result.object, expected, "labels") || changed;
  bool recreate = false;
  if (registry::value_at(*existing, {"roleRef"}) != registry::value_at(expected, {"roleRef"})) {
    result.object["roleRef"] = registry::value_at(expected, {"roleRef"});
    recreate = true;
  }
  json subjects = subjects_of(*existing);
  for (const auto& want : subjects_of(expected)) {
    bool present = false;
    for (const auto& s : subjects) {
      present = present || same_subject(s, want);
    }
    if (!present) {
      subjects.push_back(want);
      changed = true;
    }
  }
  if (!subjects.empty()) {
    result.object["subjects"] = std::move(subjects);
  }
  if ((!changed && !recreate) || is_protected(*existing)) {
    return {};
  }
  result.op = recreate ? Reconciled::Op::Recreate : Reconciled::Op::Update;
  return result;
}

}  // namespace apiserver::authorization
