// ResourceHandler::component_statuses: GET of core/v1 componentstatuses, one ComponentStatus
// per component the source reports, with its Healthy condition. Nothing is stored: no
// resourceVersion, and list ignores selectors, as upstream's.
#include <nlohmann/json.hpp>

#include "endpoints/accept.h"
#include "endpoints/resources.h"
#include "endpoints/status.h"
#include "endpoints/table_request.h"
#include "errors/status.h"
#include "registry/table.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

// A ComponentStatus as kube-apiserver writes it: metadata with the name (and Go's null
// creationTimestamp), one Healthy condition whose empty message and error are left out.
json component_status(const ComponentHealth& health) {
  json condition = {{"type", "Healthy"}, {"status", health.status}};
  if (!health.message.empty()) {
    condition["message"] = health.message;
  }
  if (!health.error.empty()) {
    condition["error"] = health.error;
  }
  return {{"kind", "ComponentStatus"},
          {"apiVersion", "v1"},
          {"metadata", {{"name", health.name}, {"creationTimestamp", nullptr}}},
          {"conditions", json::array({condition})}};
}

}  // namespace

http::Response ResourceHandler::component_statuses(const registry::Resource& r,
                                                   const RequestInfo& info,
                                                   const http::Request& request) {
  std::vector<ComponentHealth> components = component_statuses_();
  std::vector<json> objects;
  for (const auto& health : components) {
    if (info.verb == "list" || health.name == info.name) {
      objects.push_back(component_status(health));
    }
  }
  if (info.verb == "get" && objects.empty()) {
    // Upstream's storage returns a plain error here, which the handler answers as a 500.
    errors::Status status;
    status.code = 500;
    status.message = "Component not found: " + info.name;
    return status.response();
  }
  if (wants_table(request.header("Accept"))) {
    auto options = table_options(request);
    if (!options) {
      return options.error().response();
    }
    return json_response(200, info.verb == "get"
                                  ? registry::to_table_for_object(r, objects.front(), *options)
                                  : registry::to_table(r, objects, *options));
  }
  if (info.verb == "get") {
    return json_response(200, objects.front());
  }
  json items = json::array();
  for (auto& object : objects) {
    // Items of a built-in list carry no apiVersion and kind.
    object.erase("kind");
    object.erase("apiVersion");
    items.push_back(std::move(object));
  }
  return json_response(200, {{"kind", "ComponentStatusList"},
                             {"apiVersion", "v1"},
                             {"metadata", json::object()},
                             {"items", std::move(items)}});
}

}  // namespace apiserver::endpoints
