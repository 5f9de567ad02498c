#include "registry/custom_resources.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "registry/crd_schema.h"
#include "registry/go_text.h"
#include "registry/validation.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string text_at(const json& object, const char* pointer) {
  const json::json_pointer p(pointer);
  if (!object.is_object() || !object.contains(p) || !object.at(p).is_string()) {
    return "";
  }
  return object.at(p).get<std::string>();
}

std::vector<std::string> strings_at(const json& object, const char* pointer) {
  std::vector<std::string> out;
  const json::json_pointer p(pointer);
  if (object.is_object() && object.contains(p) && object.at(p).is_array()) {
    for (const auto& v : object.at(p)) {
      if (v.is_string()) {
        out.push_back(v.get<std::string>());
      }
    }
  }
  return out;
}

const json& versions_of(const json& crd) {
  static const json kNone = json::array();
  const json::json_pointer p("/spec/versions");
  return crd.is_object() && crd.contains(p) && crd.at(p).is_array() ? crd.at(p) : kNone;
}

// The column types upstream accepts; anything else prints as a string.
std::string column_type(const std::string& type) {
  static const std::set<std::string> kTypes = {"integer", "number", "string", "boolean", "date"};
  return kTypes.count(type) != 0 ? type : "string";
}

// One JSONPath step: a field name, an index, or a filter [?(@.<field>=="<value>")].
struct Step {
  enum class Kind { Field, Index, Filter, All } kind = Kind::Field;
  std::string field;
  size_t index = 0;
  std::vector<std::string> filter_path;
  json filter_value;
};

// Parses ".a.b[0].c[?(@.type==\"Ready\")].d" (also with braces around it); nullopt when the
// path uses anything else.
std::optional<std::vector<Step>> parse_path(std::string path) {
  if (path.size() >= 2 && path.front() == '{' && path.back() == '}') {
    path = path.substr(1, path.size() - 2);
  }
  std::vector<Step> steps;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      size_t end = i + 1;
      while (end < path.size() && path[end] != '.' && path[end] != '[') {
        ++end;
      }
      if (end == i + 1) {
        return std::nullopt;
      }
      steps.push_back({Step::Kind::Field, path.substr(i + 1, end - i - 1), 0, {}, nullptr});
      i = end;
    } else if (path[i] == '[') {
      size_t end = path.find(']', i);
      if (end == std::string::npos) {
        return std::nullopt;
      }
      std::string inner = path.substr(i + 1, end - i - 1);
      if (inner.rfind("?(@.", 0) == 0) {
        // A filter may itself hold ']' inside its quoted value: find the closing ")]".
        end = path.find(")]", i);
        if (end == std::string::npos) {
          return std::nullopt;
        }
        inner = path.substr(i + 1, end - i);  // "?(@.type==\"Ready\")"
        std::string expr = inner.substr(4, inner.size() - 5);
        size_t eq = expr.find("==");
        if (eq == std::string::npos) {
          return std::nullopt;
        }
        Step step;
        step.kind = Step::Kind::Filter;
        std::string lhs = expr.substr(0, eq);
        size_t start = 0;
        while (start <= lhs.size()) {
          size_t dot = lhs.find('.', start);
          if (dot == std::string::npos) {
            dot = lhs.size();
          }
          step.filter_path.push_back(lhs.substr(start, dot - start));
          start = dot + 1;
        }
        std::string rhs = expr.substr(eq + 2);
        if (rhs.size() >= 2 && (rhs.front() == '"' || rhs.front() == '\'') &&
            rhs.back() == rhs.front()) {
          step.filter_value = rhs.substr(1, rhs.size() - 2);
        } else {
          step.filter_value = json::parse(rhs, nullptr, false);
          if (step.filter_value.is_discarded()) {
            return std::nullopt;
          }
        }
        steps.push_back(std::move(step));
        i = end + 2;
        continue;
      }
      if (inner == "*") {
        steps.push_back({Step::Kind::All, "", 0, {}, nullptr});
      } else {
        if (inner.empty() || !std::all_of(inner.begin(), inner.end(),
                                          [](unsigned char c) { return std::isdigit(c); })) {
          return std::nullopt;
        }
        steps.push_back({Step::Kind::Index, "", std::stoul(inner), {}, nullptr});
      }
      i = end + 1;
    } else {
      return std::nullopt;
    }
  }
  return steps;
}

void eval_steps(const std::vector<Step>& steps, size_t at, const json& value,
                std::vector<const json*>& out) {
  if (at == steps.size()) {
    out.push_back(&value);
    return;
  }
  const Step& s = steps[at];
  switch (s.kind) {
    case Step::Kind::Field:
      if (value.is_object() && value.contains(s.field)) {
        eval_steps(steps, at + 1, value[s.field], out);
      }
      return;
    case Step::Kind::Index:
      if (value.is_array() && s.index < value.size()) {
        eval_steps(steps, at + 1, value[s.index], out);
      }
      return;
    case Step::Kind::All:
      if (value.is_array()) {
        for (const auto& item : value) {
          eval_steps(steps, at + 1, item, out);
        }
      }
      return;
    case Step::Kind::Filter:
      if (value.is_array()) {
        for (const auto& item : value) {
          const json* v = &item;
          for (const auto& name : s.filter_path) {
            v = v->is_object() && v->contains(name) ? &(*v)[name] : nullptr;
            if (v == nullptr) {
              break;
            }
          }
          if (v != nullptr && *v == s.filter_value) {
            eval_steps(steps, at + 1, item, out);
          }
        }
      }
      return;
  }
}

const char* const kDns1035Message =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

bool is_dns1123_label(const std::string& s) {
  if (s.empty() || s.size() > 63 || !std::isalnum(static_cast<unsigned char>(s.front())) ||
      !std::isalnum(static_cast<unsigned char>(s.back()))) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return (std::islower(c) != 0) || (std::isdigit(c) != 0) || c == '-';
  });
}

}  // namespace

bool is_crd(const Resource& r) {
  return r.group == kCrdGroup && r.resource == kCrdResource;
}

void default_crd(json& crd) {
  if (!crd.is_object() || !crd.contains("spec") || !crd["spec"].is_object()) {
    return;
  }
  json& spec = crd["spec"];
  if (spec.contains("names") && spec["names"].is_object()) {
    json& names = spec["names"];
    std::string kind = names.value("kind", std::string());
    if (!kind.empty() && names.value("singular", std::string()).empty()) {
      names["singular"] = lower(kind);
    }
    if (!kind.empty() && names.value("listKind", std::string()).empty()) {
      names["listKind"] = kind + "List";
    }
  }
  if (!spec.contains("conversion") || !spec["conversion"].is_object()) {
    spec["conversion"] = {{"strategy", "None"}};
  }
}

std::vector<FieldError> validate_crd(const json& crd) {
  std::vector<FieldError> out;
  const std::string name = text_at(crd, "/metadata/name");
  const std::string group = text_at(crd, "/spec/group");
  const std::string plural = text_at(crd, "/spec/names/plural");
  if (!plural.empty() && !group.empty() && name != plural + "." + group) {
    out.push_back(
        invalid_value("metadata.name", name, "must be spec.names.plural+\".\"+spec.group"));
  }
  if (group.empty()) {
    out.push_back(required_value("spec.group", ""));
  } else if (group.find('.') == std::string::npos) {
    out.push_back(invalid_value("spec.group", group, "should be a domain with at least one dot"));
  }
  const std::string scope = text_at(crd, "/spec/scope");
  if (scope.empty()) {
    out.push_back(required_value("spec.scope", ""));
  } else if (scope != "Cluster" && scope != "Namespaced") {
    out.push_back(not_supported("spec.scope", go_quote(scope), {"Cluster", "Namespaced"}));
  }
  const json& versions = versions_of(crd);
  int storage = 0;
  for (size_t i = 0; i < versions.size(); ++i) {
    const json& v = versions[i];
    const std::string path = "spec.versions[" + std::to_string(i) + "]";
    const std::string version = text_at(v, "/name");
    if (version.empty()) {
      out.push_back(required_value(path + ".name", ""));
    } else if (!is_dns1123_label(version) ||
               std::isalpha(static_cast<unsigned char>(version.front())) == 0) {
      out.push_back(invalid_value(path + ".name", version, kDns1035Message));
    }
    if (v.is_object() && v.value("storage", false)) {
      ++storage;
    }
    const json::json_pointer schema("/schema/openAPIV3Schema");
    if (!v.is_object() || !v.contains(schema) || !v.at(schema).is_object()) {
      out.push_back(required_value(path + ".schema.openAPIV3Schema", "schemas are required"));
    } else {
      std::string error;
      if (!CrdSchema::parse(v.at(schema), error)) {
        out.push_back({"FieldValueInvalid", path + ".schema.openAPIV3Schema", error});
      }
    }
  }
  if (versions.empty()) {
    out.push_back(invalid_rendered("spec.versions",
                                   "[]apiextensions.CustomResourceDefinitionVersion(nil)",
                                   "must have exactly one version marked as storage version"));
  } else if (storage != 1) {
    out.push_back(invalid_rendered("spec.versions",
                                   "[]apiextensions.CustomResourceDefinitionVersion{...}",
                                   "must have exactly one version marked as storage version"));
  }
  const std::string kind = text_at(crd, "/spec/names/kind");
  if (plural.empty()) {
    out.push_back(required_value("spec.names.plural", ""));
  }
  if (kind.empty()) {
    out.push_back(required_value("spec.names.kind", ""));
  }
  if (!plural.empty() && (!is_dns1123_label(plural) ||
                          std::isalpha(static_cast<unsigned char>(plural.front())) == 0)) {
    out.push_back(invalid_value("spec.names.plural", plural, kDns1035Message));
  }
  return out;
}

CrdNames names_of(const json& crd) {
  CrdNames n;
  n.plural = text_at(crd, "/spec/names/plural");
  n.kind = text_at(crd, "/spec/names/kind");
  n.singular = text_at(crd, "/spec/names/singular");
  if (n.singular.empty()) {
    n.singular = lower(n.kind);
  }
  n.list_kind = text_at(crd, "/spec/names/listKind");
  if (n.list_kind.empty() && !n.kind.empty()) {
    n.list_kind = n.kind + "List";
  }
  n.short_names = strings_at(crd, "/spec/names/shortNames");
  n.categories = strings_at(crd, "/spec/names/categories");
  return n;
}

json names_json(const CrdNames& n) {
  json out = {
      {"plural", n.plural}, {"singular", n.singular}, {"kind", n.kind}, {"listKind", n.list_kind}};
  if (!n.short_names.empty()) {
    out["shortNames"] = n.short_names;
  }
  if (!n.categories.empty()) {
    out["categories"] = n.categories;
  }
  return out;
}

std::string names_conflict(const CrdNames& wanted, const std::vector<CrdNames>& others) {
  for (const auto& o : others) {
    std::set<std::string> resources = {o.plural, o.singular};
    resources.insert(o.short_names.begin(), o.short_names.end());
    if (resources.count(wanted.plural) != 0) {
      return "\"" + wanted.plural + "\" is already in use";
    }
    if (resources.count(wanted.singular) != 0) {
      return "\"" + wanted.singular + "\" is already in use";
    }
    for (const auto& s : wanted.short_names) {
      if (resources.count(s) != 0) {
        return "\"" + s + "\" is already in use";
      }
    }
    std::set<std::string> kinds = {o.kind, o.list_kind};
    if (kinds.count(wanted.kind) != 0) {
      return "\"" + wanted.kind + "\" is already in use";
    }
    if (kinds.count(wanted.list_kind) != 0) {
      return "\"" + wanted.list_kind + "\" is already in use";
    }
  }
  return "";
}

std::vector<Resource> rows_for_crd(const json& crd, const CrdNames& accepted, bool terminating,
                                   std::string& error) {
  std::vector<Resource> rows;
  const std::string group = text_at(crd, "/spec/group");
  const std::string crd_name = text_at(crd, "/metadata/name");
  for (const auto& v : versions_of(crd)) {
    if (!v.is_object() || !v.value("served", false)) {
      continue;
    }
    Resource r;
    r.group = group;
    r.version = text_at(v, "/name");
    r.resource = accepted.plural;
    r.kind = accepted.kind;
    r.singular = accepted.singular;
    r.namespaced = text_at(crd, "/spec/scope") != "Cluster";
    r.verbs = {"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"};
    r.short_names = accepted.short_names;
    r.categories = accepted.categories;
    r.etcd_prefix = "/registry/" + group + "/" + accepted.plural;
    r.stability = "ga";
    auto custom = std::make_shared<CustomResource>();
    custom->crd_name = crd_name;
    custom->terminating = terminating;
    const json::json_pointer schema_at("/schema/openAPIV3Schema");
    if (v.contains(schema_at) && v.at(schema_at).is_object()) {
      custom->schema = v.at(schema_at);
      auto parsed = CrdSchema::parse(custom->schema, error);
      if (!parsed) {
        return {};
      }
      custom->structural = std::make_shared<const CrdSchema>(std::move(*parsed));
      custom->typed_root = custom->schema;
      custom->typed_root["type"] = "object";
      custom->typed_root["properties"]["metadata"] = {
          {"$ref", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}};
      custom->typed_root["properties"]["apiVersion"] = {{"type", "string"}};
      custom->typed_root["properties"]["kind"] = {{"type", "string"}};
    }
    if (v.contains("/subresources/status"_json_pointer)) {
      r.subresources.push_back({"status", {"get", "patch", "update"}, {group, r.version, r.kind}});
    }
    if (v.contains("/subresources/scale"_json_pointer)) {
      const json& scale = v.at("/subresources/scale"_json_pointer);
      custom->spec_replicas_path = text_at(scale, "/specReplicasPath");
      custom->status_replicas_path = text_at(scale, "/statusReplicasPath");
      custom->label_selector_path = text_at(scale, "/labelSelectorPath");
      r.subresources.push_back(
          {"scale", {"get", "patch", "update"}, {"autoscaling", "v1", "Scale"}});
    }
    r.table_columns.push_back({"Name", "string", "name", 0, "", ""});
    const json columns = v.value("additionalPrinterColumns", json::array());
    if (columns.is_array() && !columns.empty()) {
      for (const auto& c : columns) {
        r.table_columns.push_back(
            {c.value("name", std::string()), column_type(c.value("type", std::string())),
             c.value("format", std::string()), c.value("priority", 0),
             c.value("jsonPath", std::string()), c.value("description", std::string())});
      }
    } else {
      r.table_columns.push_back({"Age", "date", "", 0, ".metadata.creationTimestamp", ""});
    }
    r.custom = std::move(custom);
    rows.push_back(std::move(r));
  }
  return rows;
}

json eval_column_path(const std::string& path, const json& object) {
  auto steps = parse_path(path);
  if (!steps) {
    return nullptr;
  }
  std::vector<const json*> found;
  eval_steps(*steps, 0, object, found);
  return found.empty() ? json(nullptr) : *found.front();
}

}  // namespace apiserver::registry
