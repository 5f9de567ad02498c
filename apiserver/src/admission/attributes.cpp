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
  if (!a.name.empty()) {
    return a.name;
  }
  if (a.object != nullptr) {
    return registry::string_at(*a.object, {"metadata", "generateName"});
  }
  return {};
}

errors::Status forbidden(const Attributes& a, const std::string& why) {
  const std::string name = shown_name(a);
  std::string resource = a.resource->resource;
  if (!a.subresource.empty()) {
    resource += "/" + a.subresource;
  }
  const std::string group_resource =
      a.resource->group.empty() ? resource : resource + "." + a.resource->group;
  return errors::failure(403, "Forbidden",
                         group_resource + " " + common::go_quote(name) + " is forbidden: " + why,
                         errors::object_details(name, a.resource->group, resource));
}

}  // namespace apiserver::admission
