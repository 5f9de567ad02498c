#include "client/api_client.h"

#include <utility>

namespace cluster {

std::string ResourceRef::collection(std::string_view namespace_) const {
  std::string path = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (namespaced && !namespace_.empty()) {
    path += "/namespaces/";
    path += namespace_;
  }
  return path + "/" + resource;
}

std::string ResourceRef::object(std::string_view namespace_, std::string_view name,
                                std::string_view subresource) const {
  std::string path = collection(namespaced ? namespace_ : std::string_view()) + "/";
  path += name;
  if (!subresource.empty()) {
    path += "/";
    path += subresource;
  }
  return path;
}

std::string ResourceRef::api_version() const {
  return group.empty() ? version : group + "/" + version;
}

ApiError error_of(int code, std::string_view body) {
  ApiError error;
  error.code = code;
  const json status = json::parse(body, nullptr, false);
  if (status.is_object()) {
    if (auto it = status.find("reason"); it != status.end() && it->is_string()) {
      error.reason = it->get<std::string>();
    }
    if (auto it = status.find("message"); it != status.end() && it->is_string()) {
      error.message = it->get<std::string>();
    }
  }
  if (error.message.empty()) {
    error.message = "the server answered " + std::to_string(code);
  }
  return error;
}

Client::Client(Handler handler, Identity identity, std::string user_agent)
    : handler_(std::move(handler)),
      identity_(std::move(identity)),
      user_agent_(std::move(user_agent)) {}

apiserver::http::Response Client::send(std::string method, const std::string& path,
                                       const Query& query, std::string body,
                                       std::string_view content_type) const {
  apiserver::http::Request request;
  request.method = std::move(method);
  request.path = path;
  request.target = path;
  char separator = '?';
  for (const auto& [name, value] : query) {
    request.query[name].push_back(value);
    request.target += separator;
    request.target +=
        apiserver::http::query_escape(name) + "=" + apiserver::http::query_escape(value);
    separator = '&';
  }
  request.client_certificate = apiserver::http::ClientCertificate{identity_.user, identity_.groups};
  request.headers["Accept"] = "application/json";
  request.headers["User-Agent"] = user_agent_;
  if (!content_type.empty()) {
    request.headers["Content-Type"] = std::string(content_type);
  }
  request.body = std::move(body);
  request.remote_address = "in-process";
  return handler_(request);
}

Result<json> Client::decode(const apiserver::http::Response& response) {
  if (response.status < 200 || response.status >= 300) {
    return error_of(response.status, response.body);
  }
  json doc = json::parse(response.body, nullptr, false);
  if (doc.is_discarded()) {
    return ApiError{500, "InternalError", "the server's answer is not JSON"};
  }
  return doc;
}

Result<json> Client::get(const std::string& path, const Query& query) const {
  return decode(send("GET", path, query, {}, {}));
}

Result<json> Client::create(const std::string& path, const json& object, const Query& query) const {
  return decode(send("POST", path, query, object.dump(), "application/json"));
}

Result<json> Client::update(const std::string& path, const json& object) const {
  return decode(send("PUT", path, {}, object.dump(), "application/json"));
}

Result<json> Client::patch(const std::string& path, std::string_view content_type,
                           const json& patch) const {
  return decode(send("PATCH", path, {}, patch.dump(), content_type));
}

Result<json> Client::remove(const std::string& path, const json& options) const {
  if (options.is_null()) {
    return decode(send("DELETE", path, {}, {}, {}));
  }
  return decode(send("DELETE", path, {}, options.dump(), "application/json"));
}

Result<std::shared_ptr<apiserver::http::ChunkStream>> Client::watch(const std::string& path,
                                                                    const Query& query) const {
  Query with_watch = query;
  with_watch["watch"] = "true";
  apiserver::http::Response response = send("GET", path, with_watch, {}, {});
  if (response.status != 200 || response.stream == nullptr) {
    return error_of(response.status, response.body);
  }
  return response.stream;
}

}  // namespace cluster
