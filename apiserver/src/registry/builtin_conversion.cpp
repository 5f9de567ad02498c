#include "registry/builtin_conversion.h"
namespace apiserver::registry {
std::string builtin_storage_version(const std::string&, const std::string&) {
  return "";
}
std::optional<std::string> convert_builtin(const std::string&, const std::string&, nlohmann::json&,
                                           const std::string&) {
  return "not convertible";
}
}  // namespace apiserver::registry
