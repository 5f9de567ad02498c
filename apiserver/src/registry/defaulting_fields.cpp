#include "registry/defaulting_fields.h"

namespace apiserver::registry::fields {

json* object_at(json& parent, const char* key) {
  if (!parent.is_object()) {
    return nullptr;
  }
  auto it = parent.find(key);
  if (it == parent.end() || it->is_null()) {
    parent[key] = json::object();
    return &parent[key];
  }
  return it->is_object() ? &*it : nullptr;
}

json* existing_object(json& parent, const char* key) {
  if (!parent.is_object()) {
    return nullptr;
  }
  auto it = parent.find(key);
  return it != parent.end() && it->is_object() ? &*it : nullptr;
}

json* existing_array(json& parent, const char* key) {
  if (!parent.is_object()) {
    return nullptr;
  }
  auto it = parent.find(key);
  return it != parent.end() && it->is_array() ? &*it : nullptr;
}

bool empty_string(const json& parent, const char* key) {
  auto it = parent.find(key);
  return it == parent.end() || it->is_null() ||
         (it->is_string() && it->get_ref<const std::string&>().empty());
}

bool unset(const json& parent, const char* key) {
  auto it = parent.find(key);
  return it == parent.end() || it->is_null();
}

void default_string(json& parent, const char* key, const char* value) {
  if (parent.is_object() && empty_string(parent, key)) {
    parent[key] = value;
  }
}

void default_value(json& parent, const char* key, const json& value) {
  if (parent.is_object() && unset(parent, key)) {
    parent[key] = value;
  }
}

bool empty_map(const json& parent, const char* key) {
  auto it = parent.find(key);
  return it == parent.end() || it->is_null() || (it->is_object() && it->empty());
}

size_t array_size(const json& parent, const char* key) {
  auto it = parent.find(key);
  return it != parent.end() && it->is_array() ? it->size() : 0;
}

std::string string_at(const json& parent, const char* key) {
  auto it = parent.find(key);
  return it != parent.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void ensure_status(json& object, const DefaultingContext& ctx) {
  if (ctx.phase == DefaultingPhase::Create) {
    object["status"] = json::object();  // PrepareForCreate clears status
  } else {
    default_value(object, "status", json::object());
  }
}

void add_finalizer(json& object, const char* finalizer) {
  json* meta = object_at(object, "metadata");
  if (meta == nullptr) {
    return;
  }
  if (unset(*meta, "finalizers") || !(*meta)["finalizers"].is_array()) {
    (*meta)["finalizers"] = json::array();
  }
  for (const auto& f : (*meta)["finalizers"]) {
    if (f == finalizer) {
      return;
    }
  }
  (*meta)["finalizers"].push_back(finalizer);
}

}  // namespace apiserver::registry::fields
