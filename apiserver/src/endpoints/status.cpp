#include "endpoints/status.h"

namespace apiserver::endpoints {

using nlohmann::json;

std::string group_resource(const registry::Resource& r) {
  return r.group.empty() ? r.resource : r.resource + "." + r.group;
}

std::string group_kind(const registry::Resource& r) {
  return r.group.empty() ? r.kind : r.kind + "." + r.group;
}

http::Response status_with_details(int code, const std::string& reason, const std::string& message,
                                   const json& details) {
  nlohmann::ordered_json doc = {{"kind", "Status"},
                                {"apiVersion", "v1"},
                                {"metadata", json::object()},
                                {"status", "Failure"},
                                {"message", message}};
  if (!reason.empty()) {
    doc["reason"] = reason;
  }
  if (!details.is_null()) {
    doc["details"] = details;
  }
  doc["code"] = code;
  http::Response response;
  response.status = code;
  response.set_header("Content-Type", "application/json");
  response.body = doc.dump();
  return response;
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

http::Response invalid_status(const std::string& group, const std::string& kind,
                              const std::string& name,
                              const std::vector<registry::FieldError>& errors) {
  json causes = json::array();
  for (const auto& e : errors) {
    causes.push_back({{"reason", e.reason}, {"message", e.message}, {"field", e.field}});
  }
  nlohmann::ordered_json details;
  if (!name.empty()) {
    details["name"] = name;
  }
  if (!group.empty()) {
    details["group"] = group;
  }
  details["kind"] = kind;
  details["causes"] = causes;
  std::string qualified = group.empty() ? kind : kind + "." + group;
  return status_with_details(
      422, "Invalid",
      qualified + " \"" + name + "\" is invalid: " + registry::render_field_errors(errors),
      json(details));
}

http::Response json_response(int code, const json& body) {
  http::Response response;
  response.status = code;
  response.set_header("Content-Type", "application/json");
  response.body = body.dump();
  return response;
}

}  // namespace apiserver::endpoints
