#include "admission/attributes.h"

#include "common/go_quote.h"
#include "registry/json_access.h"

namespace apiserver::admission {

std::string_view operation_name(Operation operation) {
  switch (operation) {
    case Operation::Create:
      return "CREATE";
    case Operation::Update:
      return "UPDATE";
    case Operation::Delete:
      return "DELETE";
    case Operation::Connect:
      return "CONNECT";
  }
  return "";
}

std::string shown_name(const Attributes& a) {
  if (a.object == nullptr) {
    return "Unknown";  // a delete's: upstream names the object it has, and it has none
  }
  std::string name = registry::string_at(*a.object, {"metadata", "name"});
  if (name.empty()) {
    name = registry::string_at(*a.object, {"metadata", "generateName"});
  }
  return name;
}

errors::Status forbidden(const Attributes& a, const std::string& why) {
  return forbidden(a, why, shown_name(a));
}

errors::Status forbidden(const Attributes& a, const std::string& why, const std::string& name) {
  return errors::failure(
      403, "Forbidden",
      a.resource->group_resource() + " " + common::go_quote(name) + " is forbidden: " + why,
      errors::object_details(name, a.resource->group, a.resource->resource));
}

}  // namespace apiserver::admission
