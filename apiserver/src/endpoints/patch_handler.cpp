// The resource handler's PATCH: JSON patch, merge patch, strategic merge patch and server-side
// apply, on objects and on their /status and /scale; a patch that loses a race with another
// write is applied again to the newer object.
#include "endpoints/resources.h"

#include <nlohmann/json.hpp>

#include "endpoints/accept.h"
#include "endpoints/body_decode.h"
#include "endpoints/collection.h"
#include "endpoints/continue_token.h"
#include "endpoints/delete_options.h"
#include "endpoints/field_checks.h"
#include "endpoints/object_answers.h"
#include "endpoints/patch/json_patch.h"
#include "endpoints/patch/merge_patch.h"
#include "endpoints/patch/strategic_merge.h"
#include "endpoints/query_params.h"
#include "endpoints/scale_subresource.h"
#include "endpoints/served_json.h"
#include "endpoints/status.h"
#include "endpoints/watch_stream.h"
#include "endpoints/write_options.h"
#include "endpoints/yaml_json.h"
#include "errors/status.h"
#include "registry/crd_schema.h"
#include "registry/custom_resources.h"
#include "registry/generic/resource_errors.h"
#include "registry/generic/write_steps.h"
#include "registry/go_text.h"
#include "registry/json_access.h"
#include "registry/objects.h"
#include "registry/schema_index.h"
#include "registry/served_form.h"
#include "registry/table.h"

namespace apiserver::endpoints {

using nlohmann::json;
using registry::find_path;
using registry::Resource;
using registry::string_at;

http::Response ResourceHandler::patch(const Resource& r, const RequestInfo& info,
                                      const http::Request& request) {
  enum class Kind { Json, Merge, Strategic, Apply };
  std::string type = media_type(request.header("Content-Type"));
  std::optional<Kind> parsed;
  if (type == "application/json-patch+json") {
    parsed = Kind::Json;
  } else if (type == "application/merge-patch+json") {
    parsed = Kind::Merge;
  } else if (type == "application/strategic-merge-patch+json") {
    parsed = Kind::Strategic;
  } else if (type == "application/apply-patch+yaml") {
    parsed = Kind::Apply;
  }
  if (!parsed && !r.custom) {
    // Built-in kinds' PATCH routes consume only the patch types: the router refuses the rest
    // before any handler runs, in go-restful's words.
    return status_with_details(415, "UnsupportedMediaType", "415: Unsupported Media Type", json());
  }
  if (!parsed || (*parsed == Kind::Strategic && r.custom)) {
    // The custom resource handler takes every type but strategic merge patch.
    return errors::failure(415, "UnsupportedMediaType",
                           "the body of the request was in an unknown format - accepted media "
                           "types include: application/json-patch+json, "
                           "application/merge-patch+json, application/apply-patch+yaml")
        .response();
  }
  const Kind kind = *parsed;
  bool is_apply = kind == Kind::Apply;
  if (auto invalid =
          patch::validate_field_manager("PatchOptions", request.query_value("fieldManager"),
                                        is_apply, request.has_query("force"))) {
    return status_from(*invalid);
  }
  bool scale = info.subresource == "scale";
  json body;
  if (is_apply) {
    auto parsed = yaml_to_json(request.body);
    if (!parsed) {
      return bad_request(parsed.error());
    }
    body = std::move(*parsed);
    if (!body.is_object()) {
      return bad_request("error decoding YAML: the apply patch is not an object");
    }
    if (auto rejected = r.custom && !scale
                            ? rejected_custom_apply_config(r, body)
                            : rejected_apply_config(*field_validator_, scale, r, body)) {
      return *rejected;
    }
  } else {
    auto parsed = parse_client_json(request.body);
    if (!parsed) {
      // Upstream's texts: a strict decode for Warn and Strict (the default is Warn), the JSON
      // patch library's for Ignore.
      const std::string& error = parsed.error();
      const bool strict = request.query_value("fieldValidation", "Warn") != "Ignore";
      if (kind == Kind::Strategic) {
        return bad_request(error);
      }
      if (strict) {
        return bad_request("error decoding patch: " + error);
      }
      return bad_request(kind == Kind::Merge ? "Invalid JSON Patch" : error);
    }
    body = std::move(*parsed);
    if (request.query_value("fieldValidation", "Warn") != "Ignore") {
      auto shape = kind == Kind::Json    ? json_patch_shape_error(body)
                   : kind == Kind::Merge ? merge_patch_shape_error(body)
                                         : std::nullopt;
      if (shape) {
        return bad_request("error decoding patch: " + *shape);
      }
    }
  }
  auto object_type =
      scale ? patch::ObjectType::builtin("autoscaling", "v1", "Scale") : object_type_of(r);
  const auto& schemas = registry::SchemaIndex::builtin();
  const json* schema =
      scale ? schemas.kind("autoscaling", "v1", "Scale") : schemas.kind(r.group, r.version, r.kind);
  bool force = request.query_value("force") == "true";

  // A patch is applied to the newest object; when another write lands in between, it is
  // applied again to the newer one (unless the patch itself names a resourceVersion).
  constexpr int kAttempts = 5;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    storage::Object stored;
    if (auto e = storage_.get(r.storage_key(info.namespace_, info.name), stored)) {
      if (e.kind != storage::ErrorKind::NotFound || !is_apply || !info.subresource.empty() ||
          !object_type) {
        return storage_failure(r, info.name, e);
      }
      // Server-side apply creates what does not exist yet.
      auto result = patch::apply(*object_type, nullptr, body,
                                 writer_of(r, info, request, clock_.system_now()), force);
      if (result.outcome != patch::ApplyResult::Outcome::Ok) {
        return result.outcome == patch::ApplyResult::Outcome::Conflict
                   ? status_from(patch::conflict_status(result.conflicts))
               : result.outcome == patch::ApplyResult::Outcome::BadRequest
                   ? errors::bad_request(result.message).response()
                   : errors::failure(500, "InternalError", result.message).response();
      }
      json created = std::move(result.object);
      created["metadata"]["name"] = info.name;
      created["kind"] = r.kind;
      created["apiVersion"] = r.group_version();
      return create_object(r, info, request, std::move(created), {}, true);
    }
    json current = served_object(stored);
    if (auto error = registry::to_served_form(r, current)) {
      return error->response();
    }
    if (r.custom) {
      registry::custom_defaults(r, current);
    }
    json base = scale ? scale_of(r, current) : current;
    if (scale && is_apply) {
      base["metadata"]["managedFields"] = scale_managed_fields(current);
    }
    json patched;
    bool owned = false;
    switch (kind) {
      case Kind::Json: {
        auto result = patch::apply_json_patch(base, body);
        if (auto* error = std::get_if<patch::PatchError>(&result)) {
          return status_with_details(error->code, error->reason, error->message,
                                     error->code == 422 ? json::object() : json());
        }
        patched = std::move(std::get<json>(result));
        break;
      }
      case Kind::Merge: {
        auto result = patch::apply_merge_patch(base, body);
        if (auto* error = std::get_if<patch::PatchError>(&result)) {
          return status_with_details(error->code, error->reason, error->message, json());
        }
        patched = std::move(std::get<json>(result));
        break;
      }
      case Kind::Strategic: {
        auto result = patch::apply_strategic_merge_patch(schemas, schema, base, body);
        if (auto* error = std::get_if<patch::SmpError>(&result)) {
          auto status = patch::to_http_status(*error);
          if (status.plain_text) {
            http::Response panic;
            panic.status = status.code;
            panic.set_header("Content-Type", "text/plain; charset=utf-8");
            panic.body = status.message;
            return panic;
          }
          return status_with_details(status.code, status.reason, status.message,
                                     status.empty_details ? json::object() : json());
        }
        patched = std::move(std::get<json>(result));
        break;
      }
      case Kind::Apply: {
        if (!object_type) {
          return status_with_details(415, "UnsupportedMediaType",
                                     "apply patches are not supported for this kind", json());
        }
        patch::Writer writer = writer_of(r, info, request, clock_.system_now());
        if (scale) {
          writer.api_version = "autoscaling/v1";  // what the applied Scale must name
          writer.reset_fields = {};               // a Scale is all replicas: nothing to reset
        }
        auto result = patch::apply(*object_type, &base, body, writer, force);
        if (result.outcome == patch::ApplyResult::Outcome::Conflict) {
          return status_from(patch::conflict_status(result.conflicts));
        }
        if (result.outcome != patch::ApplyResult::Outcome::Ok) {
          bool bad = result.outcome == patch::ApplyResult::Outcome::BadRequest;
          return status_with_details(bad ? 400 : 500, bad ? "BadRequest" : "InternalError",
                                     result.message, json());
        }
        patched = std::move(result.object);
        owned = true;
        break;
      }
    }
    if (!patched.is_object()) {
      return bad_request("the patched object is not a JSON object");
    }
    std::vector<std::string> warnings;
    if (r.custom && !scale) {
      auto found = check_custom_fields(r, request, patched);
      if (!found) {
        return found.error().response();
      }
      warnings = is_apply ? std::vector<std::string>{} : *found;
    } else if (!is_apply) {
      // A patched Scale is decoded as an autoscaling/v1 Scale.
      const std::string group = scale ? "autoscaling" : r.group;
      const std::string version = scale ? "v1" : r.version;
      const std::string kind_name = scale ? "Scale" : r.kind;
      http::Response failure;
      std::string mode = request.query_value("fieldValidation", "Warn");
      if (mode != "Strict" && mode != "Warn" && mode != "Ignore") {
        return bad_request("fieldValidation parameter unsupported: " + mode);
      }
      const std::string patched_text = patched.dump();
      auto report = field_validator_->inspect(group, version, kind_name, patched_text);
      if (report.decode_error) {
        // Upstream decodes the patched object and reports a failure as an invalid "patch" with
        // no kind or name: the value is the patched JSON, or for a strategic merge patch Go's
        // rendering of the patch itself.
        std::string shown =
            kind == Kind::Strategic ? registry::go_print(body, false) : patched_text;
        auto cause = registry::invalid_value("patch", shown, report.decode_error->message);
        return status_with_details(422, "Invalid",
                                   "\"\" is invalid: " + registry::render_field_errors({cause}),
                                   {{"causes", json::array({{{"reason", cause.reason},
                                                             {"message", cause.message},
                                                             {"field", cause.field}}})}});
      }
      if (mode != "Ignore") {
        if (!report.problems.empty() && mode == "Strict") {
          return bad_request(registry::strict_error_message(kind_name, version, report.problems));
        }
        warnings = registry::warning_headers(report.problems);
      }
    }
    if (scale) {
      std::string scale_name = string_at(patched, {"metadata", "name"});
      if (scale_name != info.name) {
        return bad_request("the name of the object (" + scale_name +
                           ") does not match the name on the URL (" + info.name + ")");
      }
      json scaled = with_scale(r, current, patched);
      if (is_apply) {
        scaled["metadata"]["managedFields"] =
            parent_managed_fields(current, patched, r.group_version());
      }
      patched = std::move(scaled);
    }
    // A patched custom resource keeps the kind and apiVersion the patch gave it, for validation
    // to refuse (custom_type_meta_invalid); other kinds decode into the endpoint's own.
    for (const auto& [key, value] :
         {std::pair<const char*, std::string>{"kind", r.kind}, {"apiVersion", r.group_version()}}) {
      const json* given = find_path(patched, {key});
      if (!r.custom || scale || !given || !given->is_string()) {
        patched[key] = value;
      }
    }
    if (!patched.contains("metadata") || !patched["metadata"].is_object()) {
      patched["metadata"] = json::object();
    }
    bool raced = false;
    http::Response response =
        update_object(r, info, request, std::move(patched), stored, warnings, owned, &raced);
    if (raced) {
      continue;
    }
    if (scale && response.status == 200) {
      json updated = json::parse(response.body, nullptr, false);
      if (updated.is_object()) {
        response.body = scale_of(r, updated).dump();
      }
    }
    return response;
  }
  return registry::conflict(r, info.name).response();
}

}  // namespace apiserver::endpoints
