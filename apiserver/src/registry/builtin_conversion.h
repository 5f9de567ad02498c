// PLACEHOLDER until the built-in conversions land (replaced at merge).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
namespace apiserver::registry {
std::string builtin_storage_version(const std::string& group, const std::string& resource);
std::optional<std::string> convert_builtin(const std::string& group, const std::string& kind,
                                           nlohmann::json& object, const std::string& to_version);
}  // namespace apiserver::registry
