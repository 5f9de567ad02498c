#include "endpoints/object_answers.h"

#include "endpoints/served_json.h"
#include "endpoints/status.h"
#include "errors/status.h"
#include "registry/generic/resource_errors.h"

namespace apiserver::endpoints {

using nlohmann::json;
using registry::Resource;

http::Response storage_failure(const Resource& r, const std::string& name,
                               const storage::Error& error) {
  return registry::from_storage(r, name, error).response();
}

json served_object(const storage::Object& stored) {
  json object = json::parse(stored.value, nullptr, false);
  if (object.is_discarded() || !object.is_object()) {
    return json::object();
  }
  object["metadata"]["resourceVersion"] = std::to_string(stored.mod_revision);
  return object;
}

http::Response object_response(int code, const std::string& stored, int64_t revision) {
  auto text = served_json(stored, revision);
  if (!text) {
    return json_response(code, served_object({"", stored, revision}));
  }
  http::Response response;
  response.status = code;
  response.set_header("Content-Type", "application/json");
  response.body = std::move(*text);
  return response;
}

void add_warnings(http::Response& response, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) {
    response.headers.emplace_back("Warning", w);
  }
}

http::Response written_response(int code, const errors::Result<registry::Written>& written,
                                const std::vector<std::string>& warnings) {
  if (!written) {
    return written.error().response();
  }
  http::Response response = written->object
                                ? json_response(code, *written->object)
                                : object_response(code, written->stored, written->revision);
  add_warnings(response, warnings);
  return response;
}

http::Response status_from(const json& status) {
  return errors::Status::from_json(status).response();
}

}  // namespace apiserver::endpoints
