#include "admission/plugins/pod_security/check.h"

#include "registry/json_access.h"

namespace apiserver::admission::pod_security {

std::vector<const nlohmann::json*> containers_of(const nlohmann::json& spec) {
  std::vector<const nlohmann::json*> out;
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    const nlohmann::json* items = nullptr;
    if (spec.is_object()) {
      auto it = spec.find(list);
      items = it != spec.end() ? &*it : nullptr;
    }
    if (items == nullptr || !items->is_array()) {
      continue;
    }
    for (const auto& c : *items) {
      if (c.is_object()) {
        out.push_back(&c);
      }
    }
  }
  return out;
}

std::vector<const nlohmann::json*> volumes_of(const nlohmann::json& spec) {
  std::vector<const nlohmann::json*> out;
  if (!spec.is_object()) {
    return out;
  }
  auto it = spec.find("volumes");
  if (it == spec.end() || !it->is_array()) {
    return out;
  }
  for (const auto& v : *it) {
    if (v.is_object()) {
      out.push_back(&v);
    }
  }
  return out;
}

std::string container_name(const nlohmann::json& container) {
  return string_of(container, "name");
}

const nlohmann::json& object_at(const nlohmann::json& object, std::string_view key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  if (!object.is_object()) {
    return kEmpty;
  }
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

namespace {
const nlohmann::json* field(const nlohmann::json& object, std::string_view key) {
  return registry::find_path(object, {key});
}
}  // namespace

bool is_true(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json* v = field(object, key);
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

bool is_false(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json* v = field(object, key);
  return v != nullptr && v->is_boolean() && !v->get<bool>();
}

bool has(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json* v = field(object, key);
  return v != nullptr && !v->is_null();
}

std::string string_of(const nlohmann::json& object, std::string_view key) {
  return registry::string_at(object, {key});
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i != 0) {
      out += sep;
    }
    out += items[i];
  }
  return out;
}

std::string join_quote(const std::vector<std::string>& items) {
  if (items.empty()) {
    return "";
  }
  return "\"" + join(items, "\", \"") + "\"";
}

std::string join_quote(const std::set<std::string>& items) {
  return join_quote(std::vector<std::string>(items.begin(), items.end()));
}

std::string pluralize(std::string_view singular, std::string_view plural, size_t count) {
  return std::string(count == 1 ? singular : plural);
}

std::string containers_phrase(const std::vector<std::string>& names) {
  return pluralize("container", "containers", names.size()) + " " + join_quote(names);
}

std::string setters(bool pod, const std::vector<std::string>& containers) {
  std::vector<std::string> parts;
  if (pod) {
    parts.emplace_back("pod");
  }
  if (!containers.empty()) {
    parts.push_back(containers_phrase(containers));
  }
  return join(parts, " and ");
}

const nlohmann::json& security_context(const nlohmann::json& object) {
  return object_at(object, "securityContext");
}

}  // namespace apiserver::admission::pod_security
