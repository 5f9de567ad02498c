// Reads of client JSON that cannot throw: a value is used only when it is there with the type
// asked for. For request bodies, where nlohmann's value()/get<>() would throw on a value of
// another type.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace apiserver::registry {

// The value at a path of object keys, or nullptr when a step is missing or not an object.
inline const nlohmann::json* find_path(const nlohmann::json& doc,
                                       std::initializer_list<std::string_view> keys) {
  const nlohmann::json* at = &doc;
  for (std::string_view key : keys) {
    if (!at->is_object()) {
      return nullptr;
    }
    auto it = at->find(key);  // heterogeneous lookup: no string built per step
    if (it == at->end()) {
      return nullptr;
    }
    at = &*it;
  }
  return at;
}

// The value at the path, or a null value when a step is missing (for reads that go on from it).
inline const nlohmann::json& value_at(const nlohmann::json& doc,
                                      std::initializer_list<std::string_view> keys) {
  static const nlohmann::json kNull;
  const nlohmann::json* at = find_path(doc, keys);
  return at != nullptr ? *at : kNull;
}

// The string at the path, or `fallback` when absent or of another type.
inline std::string string_at(const nlohmann::json& doc,
                             std::initializer_list<std::string_view> keys,
                             const std::string& fallback = std::string()) {
  const nlohmann::json* at = find_path(doc, keys);
  return at != nullptr && at->is_string() ? at->get<std::string>() : fallback;
}

// The integer at the path (a JSON integer that fits int64), or nullopt.
inline std::optional<int64_t> integer_at(const nlohmann::json& doc,
                                         std::initializer_list<std::string_view> keys) {
  const nlohmann::json* at = find_path(doc, keys);
  if (at == nullptr || !at->is_number_integer()) {
    return std::nullopt;
  }
  if (at->is_number_unsigned() && at->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    return std::nullopt;
  }
  return at->get<int64_t>();
}

}  // namespace apiserver::registry
