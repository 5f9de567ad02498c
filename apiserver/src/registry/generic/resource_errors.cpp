#include "registry/generic/resource_errors.h"

#include "registry/json_access.h"

namespace apiserver::registry {

errors::Status not_found(const Resource& r, const std::string& name) {
  return errors::failure(404, "NotFound", r.group_resource() + " \"" + name + "\" not found",
                         errors::object_details(name, r.group, r.resource));
}

errors::Status namespace_not_found(const std::string& ns) {
  return errors::failure(404, "NotFound", "namespaces \"" + ns + "\" not found",
                         errors::object_details(ns, "", "namespaces"));
}

std::optional<errors::Status> refuse_create_in_namespace(const Resource& r,
                                                         const std::string& shown,
                                                         const std::string& ns,
                                                         const nlohmann::json& namespace_object) {
  if (string_at(namespace_object, {"status", "phase"}) != "Terminating") {
    return std::nullopt;
  }
  errors::Details details = errors::object_details(shown, "", r.resource);
  details.causes.push_back(
      {"NamespaceTerminating", "namespace " + ns + " is being terminated", "metadata.namespace"});
  return errors::failure(403, "Forbidden",
                         r.group_resource() + " \"" + shown +
                             "\" is forbidden: unable to create new content in namespace " + ns +
                             " because it is being terminated",
                         std::move(details));
}

errors::Status already_exists(const Resource& r, const std::string& name) {
  return errors::failure(409, "AlreadyExists",
                         r.group_resource() + " \"" + name + "\" already exists",
                         errors::object_details(name, r.group, r.resource));
}

errors::Status conflict(const Resource& r, const std::string& name) {
  return errors::failure(
      409, "Conflict",
      "Operation cannot be fulfilled on " + r.group_resource() + " \"" + name +
          "\": the object has been modified; please apply your changes to the latest version and "
          "try again",
      errors::object_details(name, r.group, r.resource));
}

errors::Status invalid(const std::string& group, const std::string& kind, const std::string& name,
                       const std::vector<FieldError>& field_errors) {
  errors::Details details = errors::object_details(name, group, kind);
  for (const auto& e : field_errors) {
    details.causes.push_back({e.reason, e.message, e.field});
  }
  const std::string qualified = group.empty() ? kind : kind + "." + group;
  return errors::failure(
      422, "Invalid",
      qualified + " \"" + name + "\" is invalid: " + render_field_errors(field_errors),
      std::move(details));
}

errors::Status invalid(const Resource& r, const std::string& name,
                       const std::vector<FieldError>& field_errors) {
  return invalid(r.group, r.kind, name, field_errors);
}

errors::Status from_storage(const Resource& r, const std::string& name,
                            const storage::Error& error) {
  switch (error.kind) {
    case storage::ErrorKind::NotFound:
      return not_found(r, name);
    case storage::ErrorKind::AlreadyExists:
      return already_exists(r, name);
    case storage::ErrorKind::Conflict:
      return conflict(r, name);
    case storage::ErrorKind::Expired:
      return errors::failure(410, "Expired",
                             "The resourceVersion for the provided list is too old.");
    case storage::ErrorKind::TooLarge:
      return errors::failure(413, "RequestEntityTooLarge",
                             "Request entity too large: " + error.message);
    default:
      return errors::internal_error(error.message);
  }
}

}  // namespace apiserver::registry
