// The building blocks of defaulting that many kinds share: reading and filling fields of a
// decoded object. Every helper tolerates a field of the wrong JSON type by leaving it alone, for
// validation to reject. Pure functions; safe from any thread.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "registry/defaults.h"

namespace apiserver::registry::fields {

using nlohmann::json;

// The object at `key`, created empty when absent; null when present with another type.
json* object_at(json& parent, const char* key);

// The object at `key` only when it is already there.
json* existing_object(json& parent, const char* key);

json* existing_array(json& parent, const char* key);

// Absent, null, or "" (Go's zero string): what `if x == ""` defaulting sees.
bool empty_string(const json& parent, const char* key);

// Absent or null: what `if x == nil` defaulting sees for pointer fields.
bool unset(const json& parent, const char* key);

void default_string(json& parent, const char* key, const char* value);

void default_value(json& parent, const char* key, const json& value);

// Absent, null or {} map (Go's len(map) == 0).
bool empty_map(const json& parent, const char* key);

size_t array_size(const json& parent, const char* key);

std::string string_at(const json& parent, const char* key);

template <typename F>
void for_each_object(json& parent, const char* key, F&& f) {
  if (json* items = existing_array(parent, key)) {
    for (auto& item : *items) {
      if (item.is_object()) {
        f(item);
      }
    }
  }
}

// Kinds whose status is a plain struct: Go writes `"status": {}` even when nothing is set.
void ensure_status(json& object, const DefaultingContext& ctx);

void add_finalizer(json& object, const char* finalizer);

}  // namespace apiserver::registry::fields
