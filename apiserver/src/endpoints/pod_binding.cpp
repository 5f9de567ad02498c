#include "endpoints/pod_binding.h"

#include "endpoints/admission_request.h"

#include "endpoints/field_checks.h"
#include "endpoints/object_answers.h"
#include "endpoints/resources.h"
#include "endpoints/status.h"
#include "endpoints/write_options.h"
#include "errors/status.h"
#include "registry/generic/resource_errors.h"
#include "registry/go_text.h"
#include "registry/json_access.h"

namespace apiserver::endpoints {

using nlohmann::json;
using registry::Resource;
using registry::string_at;

std::vector<registry::FieldError> binding_errors(const json& binding) {
  std::vector<registry::FieldError> errors;
  const std::string kind = string_at(binding, {"target", "kind"});
  if (!kind.empty() && kind != "Node") {
    errors.push_back(
        registry::not_supported("target.kind", registry::go_quote(kind), {"Node", "<empty>"}));
  }
  if (string_at(binding, {"target", "name"}).empty()) {
    errors.push_back(registry::required_value("target.name", ""));
  }
  return errors;
}

std::optional<std::string> assign_pod(json& pod, const std::string& node, const json& annotations,
                                      const std::string& now) {
  const std::string name = string_at(pod, {"metadata", "name"});
  if (registry::find_path(pod, {"metadata", "deletionTimestamp"}) != nullptr) {
    return "pod " + name + " is being deleted, cannot be assigned to a host";
  }
  const std::string assigned = string_at(pod, {"spec", "nodeName"});
  if (!assigned.empty()) {
    return "pod " + name + " is already assigned to node " + registry::go_quote(assigned);
  }
  const json* gates = registry::find_path(pod, {"spec", "schedulingGates"});
  if (gates != nullptr && gates->is_array() && !gates->empty()) {
    return "pod " + name + " has non-empty .spec.schedulingGates";
  }
  if (!pod["spec"].is_object()) {
    pod["spec"] = json::object();
  }
  pod["spec"]["nodeName"] = node;
  if (annotations.is_object() && !annotations.empty()) {
    json& merged = pod["metadata"]["annotations"];
    if (!merged.is_object()) {
      merged = json::object();
    }
    for (const auto& [key, value] : annotations.items()) {
      merged[key] = value;
    }
  }
  // podutil.UpdatePodCondition: the condition replaces the one of its type, keeping the time
  // of the last transition when the status stays the same.
  json condition = {{"type", "PodScheduled"},
                    {"status", "True"},
                    {"lastProbeTime", nullptr},
                    {"lastTransitionTime", now}};
  json& status = pod["status"];
  if (!status.is_object()) {
    status = json::object();
  }
  json& conditions = status["conditions"];
  if (!conditions.is_array()) {
    conditions = json::array();
  }
  for (json& existing : conditions) {
    if (existing.is_object() && string_at(existing, {"type"}) == "PodScheduled") {
      if (string_at(existing, {"status"}) == "True" && existing.contains("lastTransitionTime")) {
        condition["lastTransitionTime"] = existing["lastTransitionTime"];
      }
      existing = std::move(condition);
      return std::nullopt;
    }
  }
  conditions.push_back(std::move(condition));
  return std::nullopt;
}

// The create handler's steps for a Binding, then BindingREST.Create. `r` is the pods row (the
// binding subresource) or the bindings row (the legacy collection).
http::Response ResourceHandler::bind(const Resource& r, const RequestInfo& info,
                                     const http::Request& request,
                                     const registry::Snapshot& snapshot) {
  const bool legacy = info.subresource.empty();
  const Resource* pods = legacy ? snapshot.find("", "v1", "pods") : &r;
  if (pods == nullptr) {
    return errors::no_route().response();
  }
  Resource binding_kind;
  binding_kind.version = "v1";
  binding_kind.kind = "Binding";
  binding_kind.namespaced = true;
  auto decoded = decode_checked_body(request, binding_kind, *field_validator_);
  if (!decoded) {
    return decoded.error().response();
  }
  auto options = write_options(r, info, request, "CreateOptions", false, true, clock_);
  if (!options) {
    return options.error().response();
  }
  json& binding = decoded->object;
  AdmissionRequest admission(admission_, r, info, request, admission::Operation::Create,
                             "CreateOptions", options->dry_run);
  if (auto refused = admission.admit_body(binding)) {
    return refused->response();
  }
  static const json kNone = json::object();
  const json* found = registry::find_path(binding, {"metadata"});
  const json& meta = found != nullptr && found->is_object() ? *found : kNone;
  // The legacy collection wipes the system fields of what it creates, the uid among them; the
  // subresource keeps uid and resourceVersion as preconditions.
  const std::string uid = legacy ? "" : string_at(meta, {"uid"});
  const std::string resource_version = string_at(meta, {"resourceVersion"});
  const std::string body_ns = string_at(meta, {"namespace"});
  if (!body_ns.empty() && body_ns != info.namespace_) {
    return bad_request(
        "the namespace of the provided object does not match the namespace sent on the request");
  }
  const std::string name = legacy ? string_at(meta, {"name"}) : info.name;
  if (!legacy && string_at(meta, {"name"}) != info.name) {
    return bad_request("name in URL does not match name in Binding object");
  }
  if (auto invalid = binding_errors(binding); !invalid.empty()) {
    return errors::failure(500, "", registry::render_field_errors(invalid)).response();
  }
  if (name.empty()) {
    return bad_request("Name parameter required.");
  }
  const std::string node = string_at(binding, {"target", "name"});
  const json annotations = meta.value("annotations", json::object());
  const std::string now = registry::rfc3339(clock_.system_now());
  registry::ChangeRequest change{
      .namespace_ = info.namespace_,
      .name = name,
      .precondition_uid = uid.empty() ? std::nullopt : std::optional<std::string>(uid),
      .precondition_resource_version =
          resource_version.empty() ? std::nullopt : std::optional<std::string>(resource_version),
      .dry_run = options->dry_run,
      .change = [&](json& pod) -> std::optional<errors::Status> {
        auto refused = assign_pod(pod, node, annotations, now);
        if (!refused) {
          return std::nullopt;
        }
        return errors::failure(
            409, "Conflict",
            "Operation cannot be fulfilled on pods/binding \"" + name + "\": " + *refused,
            errors::object_details(name, "", "pods/binding"));
      }};
  auto written = store_->change(*pods, change);
  if (!written) {
    return written.error().response();
  }
  errors::Status success;
  success.code = 201;
  success.status = "Success";
  http::Response response = success.response();
  add_warnings(response, with_admission_warnings(decoded->warnings, admission));
  return response;
}

}  // namespace apiserver::endpoints
