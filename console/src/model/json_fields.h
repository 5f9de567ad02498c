// Reading members of JSON objects from the server without exceptions: a missing member, or a
// value that is not an object, reads as null (or an empty string).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace console::model {

inline const nlohmann::json& field(const nlohmann::json& object, const char* name) {
  static const nlohmann::json kNone;
  if (!object.is_object()) {
    return kNone;
  }
  const auto it = object.find(name);
  return it != object.end() ? *it : kNone;
}

inline std::string string_field(const nlohmann::json& object, const char* name) {
  const nlohmann::json& value = field(object, name);
  return value.is_string() ? value.get<std::string>() : std::string();
}

}  // namespace console::model
