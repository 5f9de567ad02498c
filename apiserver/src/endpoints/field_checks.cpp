#include "endpoints/field_checks.h"

#include <set>

#include "endpoints/body_decode.h"
#include "endpoints/status.h"
#include "errors/status.h"
#include "registry/crd_schema.h"
#include "registry/custom_resources.h"
#include "registry/go_text.h"
#include "registry/json_access.h"
#include "registry/objects.h"

namespace apiserver::endpoints {

using nlohmann::json;
using registry::find_path;
using registry::Resource;
using registry::string_at;

namespace {

// What structured-merge-diff calls a value's type, to compare with DecodeError::expected.
std::string smd_type(const json& value) {
  switch (value.type()) {
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::object:
      return "map";
    case json::value_t::array:
      return "list";
    case json::value_t::null:
      return "";
    default:
      return "numeric";
  }
}

// structured-merge-diff's text for a value of the wrong type: Go's %#v, %v or %T of its value.
std::string smd_type_error(const std::string& expected, const json& value) {
  if (expected == "string") {
    return "expected string, got &value.valueUnstructured{Value:" +
           registry::go_print(value, true) + "}";
  }
  if (expected == "numeric") {
    static const std::map<std::string, std::string> kGoTypes = {{"string", "string"},
                                                                {"boolean", "bool"},
                                                                {"map", "map[string]interface {}"},
                                                                {"list", "[]interface {}"}};
    return "expected numeric (int or float), got " + kGoTypes.at(smd_type(value));
  }
  return "expected " + expected + ", got &{" + registry::go_print(value, false) + "}";
}

// The 500 without a reason that upstream answers when an apply configuration cannot be typed
// or converted.
http::Response apply_typing_failure(const json& config, const std::string& group_version,
                                    const std::string& kind, const std::vector<std::string>& errors,
                                    const std::string& conversion_error) {
  std::string ns = string_at(config, {"metadata", "namespace"});
  std::string name = string_at(config, {"metadata", "name"});
  std::string object = ns + "/" + name + "; " + group_version + ", Kind=" + kind;
  std::string message;
  if (errors.empty()) {
    message =
        "failed to convert new object (" + object + ") to proper version: " + conversion_error;
  } else {
    message =
        "failed to create typed patch object (" + object + "): " +
        (errors.size() == 1 ? errors.front() : "errors:\n  " + registry::join(errors, "\n  "));
  }
  return errors::failure(500, "", message).response();
}

}  // namespace

// Server-side apply is always strict: an applied configuration with fields its schema does not
// declare, or with a value of the wrong type, fails while being typed, whatever fieldValidation
// says. Upstream reports it as an error without an API status, so the client gets a 500 with no
// reason and the typed converter's text (paths rendered from the strict decoder's, list items by
// index). A value of the right shape that its Go type still rejects (a bad Quantity or time, a
// fraction for an integer) fails later, when the applied object is converted to its Go type.
std::optional<http::Response> rejected_apply_config(const registry::FieldValidator& validator,
                                                    bool scale, const Resource& r,
                                                    const json& config) {
  std::string group = scale ? "autoscaling" : r.group;
  std::string version = scale ? "v1" : r.version;
  std::string kind = scale ? "Scale" : r.kind;
  auto report = validator.inspect(group, version, kind, config.dump());
  std::vector<std::string> errors;
  std::string conversion_error;
  if (const auto& decode = report.decode_error) {
    const json::json_pointer pointer(decode->pointer);
    const json& value = config.contains(pointer) ? config.at(pointer) : config;
    if (!decode->expected.empty() && smd_type(value) != decode->expected) {
      errors.push_back("." + decode->path + ": " + smd_type_error(decode->expected, value));
    } else {
      conversion_error = decode->bare_message;
    }
  }
  const std::string prefix = "unknown field \"";
  for (const auto& problem : report.problems) {
    if (problem.rfind(prefix, 0) == 0 && problem.size() > prefix.size() + 1) {
      errors.push_back("." + problem.substr(prefix.size(), problem.size() - prefix.size() - 1) +
                       ": field not declared in schema");
    }
  }
  if (errors.empty() && conversion_error.empty()) {
    return std::nullopt;
  }
  return apply_typing_failure(config, group + "/" + version, kind, errors, conversion_error);
}

// The same for custom resources: what the CRD's schema does not declare fails the apply.
std::optional<http::Response> rejected_custom_apply_config(const Resource& r, const json& config) {
  if (!r.custom->structural) {
    return std::nullopt;
  }
  json pruned = config;
  std::vector<std::string> errors;
  for (const auto& path : r.custom->structural->prune(pruned)) {
    errors.push_back("." + path + ": field not declared in schema");
  }
  if (errors.empty()) {
    return std::nullopt;
  }
  return apply_typing_failure(config, r.group_version(), r.kind, errors, "");
}

// fieldValidation: Strict answers 400 for unknown or duplicate fields, Warn (the default when the
// parameter is absent) answers with Warning headers, Ignore checks nothing. Returns the warnings
// to attach, or the answer.
errors::Result<std::vector<std::string>> check_fields(const registry::FieldValidator& validator,
                                                      const Resource& r,
                                                      const http::Request& request,
                                                      const json& decoded) {
  std::string mode = request.query_value("fieldValidation", "Warn");
  if (mode != "Strict" && mode != "Warn" && mode != "Ignore") {
    return errors::bad_request("fieldValidation parameter unsupported: " + mode);
  }
  // The body is decoded whatever the mode: a value of the wrong type fails the request.
  registry::FieldReport report;
  std::vector<std::string> problems;
  std::string type = media_type(request.header("Content-Type"));
  if (type == "application/yaml") {
    report = validator.inspect(r.group, r.version, r.kind, decoded.dump(), true);
    if (mode != "Ignore" && !report.decode_error) {
      problems = registry::yaml_duplicate_keys(request.body);
    }
  } else if (type == "application/vnd.kubernetes.protobuf") {
    report = validator.inspect(r.group, r.version, r.kind, decoded.dump());
  } else {
    report = validator.inspect(r.group, r.version, r.kind, request.body);
  }
  if (report.decode_error) {
    return errors::bad_request(r.kind + " in version \"" + r.version +
                               "\" cannot be handled as a " + r.kind + ": " +
                               report.decode_error->message);
  }
  if (mode == "Ignore") {
    return std::vector<std::string>{};
  }
  problems.insert(problems.end(), report.problems.begin(), report.problems.end());
  if (problems.empty()) {
    return std::vector<std::string>{};
  }
  if (mode == "Strict") {
    return errors::bad_request(registry::strict_error_message(r.kind, r.version, problems));
  }
  return registry::warning_headers(problems);
}

// fieldValidation for custom resources: the fields the schema prunes are the unknown ones
// (prune() removes them from `object`); the same Strict / Warn / Ignore rules as above.
errors::Result<std::vector<std::string>> check_custom_fields(const Resource& r,
                                                             const http::Request& request,
                                                             json& object) {
  std::string mode = request.query_value("fieldValidation", "Warn");
  if (mode != "Strict" && mode != "Warn" && mode != "Ignore") {
    return errors::bad_request("fieldValidation parameter unsupported: " + mode);
  }
  std::vector<std::string> problems;
  const json* kind = find_path(object, {"kind"});
  if (kind && kind->is_string() && *kind != r.kind) {
    return problems;  // another kind is not pruned: validation refuses it
  }
  // metadata is an ObjectMeta, typed as for any kind: what it does not have is dropped.
  static const std::set<std::string> kObjectMeta = {"name",
                                                    "generateName",
                                                    "namespace",
                                                    "selfLink",
                                                    "uid",
                                                    "resourceVersion",
                                                    "generation",
                                                    "creationTimestamp",
                                                    "deletionTimestamp",
                                                    "deletionGracePeriodSeconds",
                                                    "labels",
                                                    "annotations",
                                                    "ownerReferences",
                                                    "finalizers",
                                                    "managedFields"};
  std::vector<std::string> unknown;
  if (object.contains("metadata") && object["metadata"].is_object()) {
    json& meta = object["metadata"];
    for (auto it = meta.begin(); it != meta.end();) {
      if (kObjectMeta.count(it.key()) == 0) {
        unknown.push_back("metadata." + it.key());
        it = meta.erase(it);
      } else {
        ++it;
      }
    }
  }
  if (r.custom->structural) {
    for (auto& path : r.custom->structural->prune(object)) {
      unknown.push_back(std::move(path));
    }
  }
  std::sort(unknown.begin(), unknown.end());
  for (const auto& path : unknown) {
    problems.push_back("unknown field \"" + path + "\"");
  }
  if (mode == "Ignore" || problems.empty()) {
    return std::vector<std::string>{};
  }
  if (mode == "Strict") {
    return errors::bad_request(registry::strict_error_message(r.kind, r.version, problems));
  }
  return registry::warning_headers(problems);
}

errors::Result<CheckedBody> decode_checked_body(const http::Request& request, const Resource& r,
                                                const registry::FieldValidator& validator) {
  auto body = decode_object_body(request, r, validator);
  if (!body) {
    return body.error();
  }
  auto warnings = r.custom ? check_custom_fields(r, request, *body)
                           : check_fields(validator, r, request, *body);
  if (!warnings) {
    return warnings.error();
  }
  return CheckedBody{std::move(*body), std::move(*warnings)};
}

}  // namespace apiserver::endpoints
