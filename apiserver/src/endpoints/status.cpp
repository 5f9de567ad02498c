#include "endpoints/status.h"

#include "errors/status.h"

namespace apiserver::endpoints {

using nlohmann::json;

http::Response status_with_details(int code, const std::string& reason, const std::string& message,
                                   const json& details) {
  return errors::failure(
             code, reason, message,
             details.is_null() ? std::nullopt : std::optional(errors::Details::from_json(details)))
      .response();
}

http::Response bad_request(const std::string& message) {
  return status_with_details(400, "BadRequest", message, json());
}

json name_details(const registry::Resource& r, const std::string& name) {
  json details = json::object();
  if (!name.empty()) {
    details["name"] = name;
  }
  if (!r.group.empty()) {
    details["group"] = r.group;
  }
  details["kind"] = r.resource;
  return details;
}

errors::Status invalid_error(const std::string& group, const std::string& kind,
                             const std::string& name,
                             const std::vector<registry::FieldError>& field_errors) {
  errors::Details details = errors::object_details(name, group, kind);
  for (const auto& e : field_errors) {
    details.causes.push_back({e.reason, e.message, e.field});
  }
  std::string qualified = group.empty() ? kind : kind + "." + group;
  return errors::failure(
      422, "Invalid",
      qualified + " \"" + name + "\" is invalid: " + registry::render_field_errors(field_errors),
      std::move(details));
}

http::Response invalid_status(const std::string& group, const std::string& kind,
                              const std::string& name,
                              const std::vector<registry::FieldError>& field_errors) {
  return invalid_error(group, kind, name, field_errors).response();
}

http::Response json_response(int code, const json& body) {
  http::Response response;
  response.status = code;
  response.set_header("Content-Type", "application/json");
  response.body = body.dump();
  return response;
}

}  // namespace apiserver::endpoints
