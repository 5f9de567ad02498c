#include "registry/custom_resources.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <set>

#include "registry/crd_schema.h"
#include "registry/crd_selectable_fields.h"
#include "registry/custom_conversion.h"
#include "registry/go_text.h"
#include "registry/name_scanners.h"
#include "registry/validation.h"
#include "registry/version_priority.h"

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

bool flag_at(const json& object, const char* pointer) {
  const json::json_pointer p(pointer);
  return object.is_object() && object.contains(p) && object.at(p).is_boolean() &&
         object.at(p).get<bool>();
}

int64_t int_at(const json& object, const char* pointer) {
  const json::json_pointer p(pointer);
  if (!object.is_object() || !object.contains(p) || !object.at(p).is_number_integer()) {
    return 0;
  }
  return object.at(p).get<int64_t>();
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
        // An index past SIZE_MAX matches nothing, as one past the array's end.
        size_t index = SIZE_MAX;
        std::from_chars(inner.data(), inner.data() + inner.size(), index);
        steps.push_back({Step::Kind::Index, "", index, {}, nullptr});
      }
      i = end + 1;
    } else {
      return std::nullopt;
    }
  }
  return steps;
}

// Level by level (a path may hold any number of steps), keeping the document order of matches.
std::vector<const json*> eval_steps(const std::vector<Step>& steps, const json& root) {
  std::vector<const json*> current{&root};
  for (const Step& s : steps) {
    std::vector<const json*> next;
    for (const json* value : current) {
      switch (s.kind) {
        case Step::Kind::Field:
          if (value->is_object()) {
            if (auto it = value->find(s.field); it != value->end()) {
              next.push_back(&*it);
            }
          }
          break;
        case Step::Kind::Index:
          if (value->is_array() && s.index < value->size()) {
            next.push_back(&(*value)[s.index]);
          }
          break;
        case Step::Kind::All:
          if (value->is_array()) {
            for (const auto& item : *value) {
              next.push_back(&item);
            }
          }
          break;
        case Step::Kind::Filter:
          if (value->is_array()) {
            for (const auto& item : *value) {
              const json* v = &item;
              for (const auto& name : s.filter_path) {
                auto it = v->is_object() ? v->find(name) : v->end();
                v = v->is_object() && it != v->end() ? &*it : nullptr;
                if (v == nullptr) {
                  break;
                }
              }
              if (v != nullptr && *v == s.filter_value) {
                next.push_back(&item);
              }
            }
          }
          break;
      }
    }
    current.swap(next);
  }
  return current;
}

// spec.conversion, with the field paths of upstream's internal type (webhookClientConfig and
// conversionReviewVersions sit directly under spec.conversion there).
void validate_conversion(const json& crd, std::vector<FieldError>& out) {
  const json::json_pointer at("/spec/conversion");
  if (!crd.contains(at) || !crd.at(at).is_object()) {
    return;
  }
  const json& conversion = crd.at(at);
  const std::string strategy = text_at(conversion, "/strategy");
  const bool has_webhook = conversion.contains("webhook") && conversion["webhook"].is_object();
  const json hook = has_webhook ? conversion["webhook"] : json::object();
  const bool has_client = hook.contains("clientConfig") && hook["clientConfig"].is_object();
  if (strategy.empty()) {
    out.push_back(required_value("spec.conversion.strategy", ""));
  } else if (strategy != "None" && strategy != "Webhook") {
    out.push_back(
        not_supported("spec.conversion.strategy", go_quote(strategy), {"None", "Webhook"}));
  }
  if (strategy == "Webhook") {
    if (!has_client) {
      out.push_back(required_value("spec.conversion.webhookClientConfig",
                                   "required when strategy is set to Webhook"));
    } else {
      const json& client = hook["clientConfig"];
      const bool url = client.contains("url") && !client["url"].is_null();
      const bool service = client.contains("service") && !client["service"].is_null();
      if (url == service) {
        out.push_back(required_value("spec.conversion.webhookClientConfig",
                                     "exactly one of url or service is required"));
      }
    }
    const std::vector<std::string> versions = strings_at(hook, "/conversionReviewVersions");
    if (versions.empty()) {
      out.push_back(required_value("spec.conversion.conversionReviewVersions", ""));
    } else if (std::none_of(versions.begin(), versions.end(),
                            [](const std::string& v) { return v == "v1" || v == "v1beta1"; })) {
      std::string rendered = "[]string{";
      for (size_t i = 0; i < versions.size(); ++i) {
        rendered += (i > 0 ? ", " : "") + go_quote(versions[i]);
      }
      out.push_back(invalid_rendered("spec.conversion.conversionReviewVersions", rendered + "}",
                                     "must include at least one of v1, v1beta1"));
    }
  } else if (has_client) {
    out.push_back(forbidden("spec.conversion.webhookClientConfig",
                            "should not be set when strategy is not set to Webhook"));
  }
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
    std::string kind = text_at(names, "/kind");
    if (!kind.empty() && text_at(names, "/singular").empty()) {
      names["singular"] = lower(kind);
    }
    if (!kind.empty() && text_at(names, "/listKind").empty()) {
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
    } else if (auto errs = dns1035_label_problems(version); !errs.empty()) {
      out.push_back(invalid_value(path + ".name", version, join(errs, ",")));
    }
    if (flag_at(v, "/storage")) {
      ++storage;
    }
    const json::json_pointer schema("/schema/openAPIV3Schema");
    if (!v.is_object() || !v.contains(schema) || !v.at(schema).is_object()) {
      out.push_back(required_value(path + ".schema.openAPIV3Schema", "schemas are required"));
    } else {
      if (auto parsed = CrdSchema::parse(v.at(schema), path + ".schema.openAPIV3Schema"); !parsed) {
        if (auto field_error = parsed.error().field_error) {
          out.push_back(*field_error);
        } else {
          out.push_back(
              {"FieldValueInvalid", path + ".schema.openAPIV3Schema", parsed.error().message});
        }
      }
    }
    auto selectable = validate_selectable_fields(v, path);
    out.insert(out.end(), selectable.begin(), selectable.end());
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
  validate_conversion(crd, out);
  const std::string kind = text_at(crd, "/spec/names/kind");
  if (plural.empty()) {
    out.push_back(required_value("spec.names.plural", ""));
  }
  if (kind.empty()) {
    out.push_back(required_value("spec.names.kind", ""));
  }
  if (auto errs = dns1035_label_problems(plural); !plural.empty() && !errs.empty()) {
    out.push_back(invalid_value("spec.names.plural", plural, join(errs, ",")));
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

std::vector<FieldError> custom_type_meta_errors(const Resource& r, const nlohmann::json& object) {
  // Unstructured accessors: a field that is not a string reads as "".
  auto text = [&](const char* key) {
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::vector<FieldError> errors;
  const std::string kind = text("kind");
  if (kind != r.kind) {
    errors.push_back(invalid_value("kind", kind, "must be " + r.kind));
  }
  const std::string api_version = text("apiVersion");
  const std::string expected = r.group + "/" + r.version;
  if (api_version != expected) {
    errors.push_back(invalid_value("apiVersion", api_version, "must be " + expected));
  }
  return errors;
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

namespace {

// upstream's default deprecation warning: the version is deprecated, and the newest served,
// not deprecated version of higher priority is the one to use, when there is one.
std::string default_deprecation_warning(const json& crd, const std::string& version,
                                        const std::string& kind) {
  const std::string group = text_at(crd, "/spec/group");
  std::string warning = group + "/" + version + " " + kind + " is deprecated";
  std::vector<std::string> better;
  for (const auto& v : versions_of(crd)) {
    const std::string name = text_at(v, "/name");
    if (flag_at(v, "/served") && !flag_at(v, "/deprecated") &&
        compare_version_priority(version, name) < 0) {
      better.push_back(name);
    }
  }
  if (!better.empty()) {
    sort_by_version_priority(better);
    warning += "; use " + group + "/" + better.front() + " " + kind;
  }
  return warning;
}

}  // namespace

common::Result<std::vector<Resource>> rows_for_crd(
    const json& crd, const CrdNames& accepted, bool terminating,
    std::shared_ptr<const CustomConverter> converter) {
  std::vector<Resource> rows;
  std::vector<bool> served;
  std::shared_ptr<const Resource> storage_row;
  const std::string group = text_at(crd, "/spec/group");
  const std::string crd_name = text_at(crd, "/metadata/name");
  std::vector<std::string> all_versions;
  for (const auto& v : versions_of(crd)) {
    all_versions.push_back(group + "/" + text_at(v, "/name"));
  }
  for (const auto& v : versions_of(crd)) {
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
    r.field_selectors = custom_field_selectors(v, r.namespaced);
    auto custom = std::make_shared<CustomResource>();
    custom->crd_name = crd_name;
    custom->terminating = terminating;
    custom->converter = converter;
    custom->versions = all_versions;
    custom->deprecated = flag_at(v, "/deprecated");
    if (custom->deprecated) {
      custom->deprecation_warning =
          v.contains("deprecationWarning") && v["deprecationWarning"].is_string()
              ? v["deprecationWarning"].get<std::string>()
              : default_deprecation_warning(crd, r.version, r.kind);
    }
    const json::json_pointer schema_at("/schema/openAPIV3Schema");
    if (v.contains(schema_at) && v.at(schema_at).is_object()) {
      custom->schema = v.at(schema_at);
      auto parsed = CrdSchema::parse(custom->schema);
      if (!parsed) {
        return parsed.error().message;
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
    const json::json_pointer columns_at("/additionalPrinterColumns");
    const json& columns = v.contains(columns_at) ? v.at(columns_at) : json::array();
    if (columns.is_array() && !columns.empty()) {
      for (const auto& c : columns) {
        const int64_t priority = int_at(c, "/priority");
        r.table_columns.push_back(
            {text_at(c, "/name"), column_type(text_at(c, "/type")), text_at(c, "/format"),
             static_cast<int>(std::clamp<int64_t>(priority, INT32_MIN, INT32_MAX)),
             text_at(c, "/jsonPath"), text_at(c, "/description")});
      }
    } else {
      r.table_columns.push_back({"Age", "date", "", 0, ".metadata.creationTimestamp", ""});
    }
    r.custom = std::move(custom);
    if (flag_at(v, "/storage")) {
      storage_row = std::make_shared<const Resource>(r);
    }
    served.push_back(flag_at(v, "/served"));
    rows.push_back(std::move(r));
  }
  std::vector<Resource> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!served[i]) {
      continue;
    }
    if (storage_row && rows[i].version != storage_row->version) {
      rows[i].stored_as = storage_row;
    }
    out.push_back(std::move(rows[i]));
  }
  return out;
}

json eval_column_path(const std::string& path, const json& object) {
  auto steps = parse_path(path);
  if (!steps) {
    return nullptr;
  }
  const auto found = eval_steps(*steps, object);
  return found.empty() ? json(nullptr) : *found.front();
}

}  // namespace apiserver::registry
