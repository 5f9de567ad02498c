// What the console's API requests are made of: the paths of collections and objects, the apply
// form of an object and set_path() for the editor's writes, and the Status of a failed request.
#include "console/app/console_state.h"

#include "model/json_fields.h"

namespace console::app {

namespace {

using json = nlohmann::json;

}  // namespace

ApiError parse_status(int http_status, std::string_view body) {
  ApiError error;
  error.http_status = http_status;
  const json status = json::parse(body, nullptr, false);
  if (status.is_object() && model::string_field(status, "kind") == "Status") {
    error.reason = model::string_field(status, "reason");
    error.message = model::string_field(status, "message");
    const json& causes = model::field(model::field(status, "details"), "causes");
    if (causes.is_array()) {
      for (const json& c : causes) {
        error.causes.push_back(ApiError::Cause{model::string_field(c, "reason"),
                                               model::string_field(c, "message"),
                                               model::string_field(c, "field")});
      }
    }
    return error;
  }
  error.message = "HTTP " + std::to_string(http_status);
  if (!body.empty()) {
    error.message += ": " + std::string(body.substr(0, 300));
  }
  return error;
}

json apply_form(const json& object) {
  json form = object;
  if (!form.is_object()) {
    return form;
  }
  form.erase("status");
  auto metadata = form.find("metadata");
  if (metadata != form.end() && metadata->is_object()) {
    for (const char* key :
         {"managedFields", "uid", "resourceVersion", "creationTimestamp", "generation", "selfLink",
          "deletionTimestamp", "deletionGracePeriodSeconds"}) {
      metadata->erase(key);
    }
  }
  return form;
}

bool set_path(json& object, std::string_view dotted, json value) {
  json* at = &object;
  size_t start = 0;
  while (true) {
    const size_t dot = dotted.find('.', start);
    const std::string step(
        dotted.substr(start, dot == std::string_view::npos ? dotted.npos : dot - start));
    if (step.empty()) {
      return false;
    }
    if (at->is_null()) {
      *at = json::object();
    }
    if (!at->is_object()) {
      return false;
    }
    if (dot == std::string_view::npos) {
      (*at)[step] = std::move(value);
      return true;
    }
    at = &(*at)[step];
    start = dot + 1;
  }
}

std::string collection_path(const model::ApiResource& resource) {
  const std::string base = resource.group.empty()
                               ? "/api/" + resource.version
                               : "/apis/" + resource.group + "/" + resource.version;
  return base + "/" + resource.resource;
}

std::string object_path(const model::ApiResource& resource, std::string_view namespace_,
                        std::string_view name) {
  std::string base = resource.group.empty() ? "/api/" + resource.version
                                            : "/apis/" + resource.group + "/" + resource.version;
  if (resource.namespaced) {
    base += "/namespaces/" + std::string(namespace_);
  }
  return base + "/" + resource.resource + "/" + std::string(name);
}

std::string create_path(const model::ApiResource& resource, std::string_view namespace_) {
  std::string base = resource.group.empty() ? "/api/" + resource.version
                                            : "/apis/" + resource.group + "/" + resource.version;
  if (resource.namespaced) {
    base += "/namespaces/" + std::string(namespace_);
  }
  return base + "/" + resource.resource;
}

}  // namespace console::app
