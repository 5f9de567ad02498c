#include "endpoints/delete_options.h"

#include <nlohmann/json.hpp>

#include "endpoints/body_decode.h"
#include "endpoints/query_params.h"
#include "endpoints/status.h"
#include "endpoints/yaml_json.h"
#include "errors/status.h"
#include "protobuf/decode.h"
#include "registry/go_text.h"
#include "registry/kind_strategy.h"
#include "registry/objects.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

// The Go types of DeleteOptions' fields that the schema only knows as strings.
constexpr std::pair<const char*, const char*> kNamedTypes[] = {
    {"propagationPolicy", "v1.DeletionPropagation"},
    {"preconditions.uid", "types.UID"},
};

errors::Status decode_failure(const std::string& message) {
  return errors::failure(500, "", message);
}

// The decoder's text with the named Go type where the schema says string.
std::string with_named_type(const registry::DecodeError& error) {
  const std::string suffix = " of type string";
  for (const auto& [path, type] : kNamedTypes) {
    if (error.path == path && error.message.size() >= suffix.size() &&
        error.message.compare(error.message.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return error.message.substr(0, error.message.size() - suffix.size()) + " of type " + type;
    }
  }
  return error.message;
}

// The options of a body that decoded (every value has its schema's type).
DeleteOptions from_document(const json& doc) {
  DeleteOptions options;
  if (!doc.is_object()) {
    return options;
  }
  if (auto it = doc.find("gracePeriodSeconds"); it != doc.end() && it->is_number_integer()) {
    options.grace_period_seconds = it->get<int64_t>();
  }
  if (auto it = doc.find("orphanDependents"); it != doc.end() && it->is_boolean()) {
    options.orphan_dependents = it->get<bool>();
  }
  if (auto it = doc.find("propagationPolicy"); it != doc.end() && it->is_string()) {
    options.propagation_policy = it->get<std::string>();
  }
  if (auto it = doc.find("dryRun"); it != doc.end() && it->is_array()) {
    for (const auto& value : *it) {
      options.dry_run.push_back(value.is_string() ? value.get<std::string>() : std::string());
    }
  }
  if (auto pre = doc.find("preconditions"); pre != doc.end() && pre->is_object()) {
    if (auto it = pre->find("uid"); it != pre->end() && it->is_string()) {
      options.precondition_uid = it->get<std::string>();
    }
    if (auto it = pre->find("resourceVersion"); it != pre->end() && it->is_string()) {
      options.precondition_resource_version = it->get<std::string>();
    }
  }
  return options;
}

errors::Result<DeleteOptions> from_body(const http::Request& request,
                                        const registry::FieldValidator& validator) {
  const std::string type = media_type(request.header("Content-Type"));
  std::optional<json> doc;
  std::string text;
  if (type.empty() || type == "application/json") {
    auto parsed = parse_client_json(request.body);
    if (!parsed) {
      return decode_failure("couldn't get version/kind; json parse error: " + parsed.error());
    }
    doc = std::move(*parsed);
  } else if (type == "application/yaml" || type == "application/vnd.kubernetes.protobuf") {
    auto decoded = type == "application/yaml" ? yaml_to_json(request.body)
                                              : protobuf::decode_k8s_protobuf(request.body);
    if (!decoded) {
      return decode_failure(decoded.error());
    }
    doc = std::move(*decoded);
  } else {
    return unsupported_body_type();
  }
  std::string api_version;
  std::string kind;
  if (auto meta_error = read_type_meta(*doc, api_version, kind)) {
    return decode_failure("couldn't get version/kind; json parse error: " + *meta_error);
  }
  if (!doc->is_null()) {
    if (text.empty()) {
      text = type.empty() || type == "application/json" ? request.body : doc->dump();
    }
    auto report = validator.inspect("", "v1", "DeleteOptions", text);
    if (report.decode_error) {
      return decode_failure(with_named_type(*report.decode_error));
    }
  }
  return from_document(*doc);
}

errors::Result<DeleteOptions> from_query(const http::Request& request) {
  DeleteOptions options;
  if (request.has_query("gracePeriodSeconds")) {
    auto parsed = go_parse_int64(request.query_value("gracePeriodSeconds"));
    if (!parsed) {
      return errors::bad_request(parsed.error());
    }
    options.grace_period_seconds = *parsed;
  }
  if (request.has_query("orphanDependents")) {
    // The parameter codec's bool: only "0" and "false" (any case) are false.
    std::string value = request.query_value("orphanDependents");
    for (auto& c : value) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    options.orphan_dependents = !(value == "0" || value == "false");
  }
  if (request.has_query("propagationPolicy")) {
    options.propagation_policy = request.query_value("propagationPolicy");
  }
  if (auto it = request.query.find("dryRun"); it != request.query.end()) {
    options.dry_run = it->second;
  }
  return options;
}

std::vector<registry::FieldError> validate(const DeleteOptions& options) {
  std::vector<registry::FieldError> errors;
  if (options.orphan_dependents && options.propagation_policy) {
    errors.push_back(registry::invalid_rendered(
        "propagationPolicy", registry::go_quote(*options.propagation_policy),
        "orphanDependents and deletionPropagation cannot be both set"));
  }
  if (const auto& policy = options.propagation_policy;
      policy && *policy != "Foreground" && *policy != "Background" && *policy != "Orphan") {
    errors.push_back(registry::not_supported("propagationPolicy", registry::go_quote(*policy),
                                             {"Foreground", "Background", "Orphan", "nil"}));
  }
  bool all = true;
  std::string rendered;
  for (const auto& value : options.dry_run) {
    all = all && value == "All";
    rendered += (rendered.empty() ? "" : ", ") + registry::go_quote(value);
  }
  if (!all) {
    errors.push_back(registry::not_supported("dryRun", "[]string{" + rendered + "}", {"All"}));
  }
  return errors;
}

}  // namespace

errors::Result<DeleteOptions> decode_delete_options(const http::Request& request,
                                                    const registry::FieldValidator& validator) {
  auto options = request.body.empty() ? from_query(request) : from_body(request, validator);
  if (!options) {
    return options;
  }
  if (auto errors = validate(*options); !errors.empty()) {
    return invalid_error("meta.k8s.io", "DeleteOptions", "", errors);
  }
  return options;
}

std::vector<std::string> default_policy_warnings(const registry::Resource& r,
                                                 const DeleteOptions& options) {
  if (r.custom || options.orphan_dependents || options.propagation_policy) {
    return {};
  }
  const registry::KindStrategy* strategy = registry::kind_strategy(r.group, r.kind);
  if (strategy == nullptr || strategy->default_gc_warning.empty()) {
    return {};
  }
  return registry::warning_headers({std::string(strategy->default_gc_warning)});
}

bool returns_deleted_object(const registry::Resource& r) {
  if (r.custom) {
    return true;
  }
  if (r.group.empty()) {
    return r.resource == "pods" || r.resource == "services" || r.resource == "serviceaccounts" ||
           r.resource == "persistentvolumes" || r.resource == "persistentvolumeclaims" ||
           r.resource == "namespaces";
  }
  return r.group == "resource.k8s.io" &&
         (r.resource == "resourceclaims" || r.resource == "podschedulingcontexts");
}

http::Response deleted_response(const registry::Resource& r, const json& object) {
  if (returns_deleted_object(r)) {
    return json_response(200, object);
  }
  const json& meta = object.contains("metadata") ? object["metadata"] : json::object();
  auto text = [&](const char* key) {
    auto it = meta.find(key);
    return it != meta.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  errors::Status success;
  success.code = 0;  // upstream's success Status carries no code
  success.status = "Success";
  success.details = errors::object_details(text("name"), r.group, r.resource, text("uid"));
  return success.response();
}

}  // namespace apiserver::endpoints
