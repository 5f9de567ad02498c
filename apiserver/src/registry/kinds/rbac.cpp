// Roles, ClusterRoles and their bindings: rule and subject validation, the immutable roleRef,
// subject defaults and the binding printer.
#include "registry/kinds/kinds.h"

#include <string>
#include <string_view>
#include <vector>

#include "registry/defaulting_fields.h"
#include "registry/go_text.h"
#include "registry/print_cells.h"
#include "registry/table.h"
#include "registry/validation_rules.h"

namespace apiserver::registry::kinds {

namespace {

namespace validate {
using namespace rules;

void validate_rules(const json& rules, bool namespaced, Errors& out) {
  if (!rules.is_array()) {
    return;
  }
  auto size_of = [](const json& rule, const char* key) {
    const json& v = get(rule, key);
    return v.is_array() ? v.size() : 0;
  };
  for (size_t i = 0; i < rules.size(); ++i) {
    const json& rule = rules[i];
    const std::string p = index("rules", i);
    if (size_of(rule, "verbs") == 0) {
      out.push_back(required_value(p + ".verbs", "verbs must contain at least one value"));
    }
    if (size_of(rule, "nonResourceURLs") > 0) {
      std::string urls = "[]string{";
      for (size_t k = 0; k < get(rule, "nonResourceURLs").size(); ++k) {
        urls += (k ? ", " : "") + render_scalar(get(rule, "nonResourceURLs")[k]);
      }
      urls += "}";
      if (namespaced) {
        out.push_back(invalid_rendered(p + ".nonResourceURLs", urls,
                                       "namespaced rules cannot apply to non-resource URLs"));
      }
      if (size_of(rule, "apiGroups") || size_of(rule, "resources") ||
          size_of(rule, "resourceNames")) {
        out.push_back(
            invalid_rendered(p + ".nonResourceURLs", urls,
                             "rules cannot apply to both regular resources and non-resource URLs"));
      }
      continue;
    }
    if (size_of(rule, "apiGroups") == 0) {
      out.push_back(
          required_value(p + ".apiGroups", "resource rules must supply at least one api group"));
    }
    if (size_of(rule, "resources") == 0) {
      out.push_back(
          required_value(p + ".resources", "resource rules must supply at least one resource"));
    }
  }
}

const char* kRbacGroup = "rbac.authorization.k8s.io";

void validate_binding(const json& obj, bool namespaced, Errors& out) {
  const json& ref = get(obj, "roleRef");
  const std::string group = str(ref, "apiGroup");
  if (group != kRbacGroup) {
    out.push_back(not_supported("roleRef.apiGroup", go_quote(group), {kRbacGroup}));
  }
  const std::string kind = str(ref, "kind");
  if (namespaced ? (kind != "Role" && kind != "ClusterRole") : kind != "ClusterRole") {
    out.push_back(not_supported("roleRef.kind", go_quote(kind),
                                namespaced ? std::vector<std::string>{"Role", "ClusterRole"}
                                           : std::vector<std::string>{"ClusterRole"}));
  }
  const std::string name = str(ref, "name");
  if (name.empty()) {
    out.push_back(required_value("roleRef.name", ""));
  } else {
    for (const auto& msg : name_problems(name, NameRule::PathSegment, false)) {
      out.push_back(invalid_value("roleRef.name", name, msg));
    }
  }
  const json& subjects = get(obj, "subjects");
  if (!subjects.is_array()) {
    return;
  }
  for (size_t i = 0; i < subjects.size(); ++i) {
    const json& s = subjects[i];
    const std::string p = index("subjects", i);
    const std::string subject_name = str(s, "name");
    const std::string subject_group = str(s, "apiGroup");
    const std::string subject_kind = str(s, "kind");
    if (subject_name.empty()) {
      out.push_back(required_value(p + ".name", ""));
    }
    if (subject_kind == "ServiceAccount") {
      if (!subject_name.empty()) {
        for (const auto& msg : name_problems(subject_name, NameRule::Dns1123Subdomain, false)) {
          out.push_back(invalid_value(p + ".name", subject_name, msg));
        }
      }
      if (!subject_group.empty()) {
        out.push_back(not_supported(p + ".apiGroup", go_quote(subject_group), {""}));
      }
      if (!namespaced && str(s, "namespace").empty()) {
        out.push_back(required_value(p + ".namespace", ""));
      }
    } else if (subject_kind == "User" || subject_kind == "Group") {
      if (subject_name.empty()) {
        out.push_back(invalid_value(
            p + ".name", subject_name,
            subject_kind == "User" ? "user name cannot be empty" : "group name cannot be empty"));
      }
      if (subject_group != kRbacGroup) {
        out.push_back(not_supported(p + ".apiGroup", go_quote(subject_group), {kRbacGroup}));
      }
    } else {
      out.push_back(
          not_supported(p + ".kind", go_quote(subject_kind), {"ServiceAccount", "User", "Group"}));
    }
  }
}

void validate_binding_update(const json& obj, const json& old, Errors& out) {
  const json& ref = get(obj, "roleRef");
  if (ref != get(old, "roleRef")) {
    out.push_back(invalid_rendered("roleRef",
                                   "rbac.RoleRef{APIGroup:" + go_quote(str(ref, "apiGroup")) +
                                       ", Kind:" + go_quote(str(ref, "kind")) +
                                       ", Name:" + go_quote(str(ref, "name")) + "}",
                                   "cannot change roleRef"));
  }
}

}  // namespace validate

namespace print {
using namespace cells;

json print_binding(const json& obj, const Context& c) {
  const json& ref = at(obj, "roleRef");
  std::vector<std::string> users;
  std::vector<std::string> groups;
  std::vector<std::string> sas;
  for (const auto& s : arr(at(obj, "subjects"))) {
    const std::string kind = str(at(s, "kind"));
    if (kind == "ServiceAccount") {
      sas.push_back(str(at(s, "namespace")) + "/" + str(at(s, "name")));
    } else if (kind == "User") {
      users.push_back(str(at(s, "name")));
    } else if (kind == "Group") {
      groups.push_back(str(at(s, "name")));
    }
  }
  return json::array({name_of(obj), str(at(ref, "kind")) + "/" + str(at(ref, "name")), age(obj, c),
                      join(users, ", "), join(groups, ", "), join(sas, ", ")});
}

}  // namespace print

namespace defaulting {
using namespace fields;

void default_rbac_subjects(json& object) {
  for_each_object(object, "subjects", [](json& subject) {
    if (!empty_string(subject, "apiGroup")) {
      return;
    }
    std::string kind = string_at(subject, "kind");
    if (kind == "ServiceAccount") {
      subject["apiGroup"] = "";
    } else if (kind == "User" || kind == "Group") {
      subject["apiGroup"] = "rbac.authorization.k8s.io";
    }
  });
}

void default_role_binding(json& binding) {
  if (json* ref = existing_object(binding, "roleRef")) {
    default_string(*ref, "apiGroup", "rbac.authorization.k8s.io");
  }
  default_rbac_subjects(binding);
}

}  // namespace defaulting

}  // namespace

void add_rbac(Strategies& s) {
  constexpr std::string_view kGroup = "rbac.authorization.k8s.io";
  s.push_back({.group = kGroup, .kind = "Role", .validate = [](const json& o, Errors& e) {
                 validate::validate_rules(rules::get(o, "rules"), true, e);
               }});
  s.push_back({.group = kGroup, .kind = "ClusterRole", .validate = [](const json& o, Errors& e) {
                 validate::validate_rules(rules::get(o, "rules"), false, e);
               }});
  s.push_back(
      {.group = kGroup,
       .kind = "RoleBinding",
       .defaults = [](json& o, const DefaultingContext&) { defaulting::default_role_binding(o); },
       .validate = [](const json& o, Errors& e) { validate::validate_binding(o, true, e); },
       .validate_update = validate::validate_binding_update,
       .print = print::print_binding});
  s.push_back(
      {.group = kGroup,
       .kind = "ClusterRoleBinding",
       .defaults = [](json& o, const DefaultingContext&) { defaulting::default_role_binding(o); },
       .validate = [](const json& o, Errors& e) { validate::validate_binding(o, false, e); },
       .validate_update = validate::validate_binding_update,
       .print = print::print_binding});
}

}  // namespace apiserver::registry::kinds
