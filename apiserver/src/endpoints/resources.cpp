#include "endpoints/resources.h"
#include "endpoints/served_json.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "apiserver/apiserver.h"
#include "endpoints/accept.h"
#include "endpoints/body_decode.h"
#include "endpoints/continue_token.h"
#include "endpoints/delete_options.h"
#include "endpoints/json_access.h"
#include "endpoints/patch/field_manager.h"
#include "endpoints/patch/json_patch.h"
#include "endpoints/patch/merge_patch.h"
#include "endpoints/patch/strategic_merge.h"
#include "endpoints/protobuf.h"
#include "endpoints/query_params.h"
#include "endpoints/reviews.h"
#include "endpoints/status.h"
#include "endpoints/yaml_json.h"
#include "errors/status.h"
#include "guard.h"
#include "registry/changed_paths.h"
#include "registry/crd_schema.h"
#include "registry/custom_resources.h"
#include "registry/defaults.h"
#include "registry/field_validation.h"
#include "registry/go_text.h"
#include "registry/lifecycle.h"
#include "registry/objects.h"
#include "registry/schema_index.h"
#include "registry/selectors.h"
#include "registry/table.h"
#include "registry/validation.h"
#include "trace/request_trace.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;
using registry::Resource;

constexpr int kGenerateNameAttempts = 8;
constexpr auto kWatchTick = std::chrono::milliseconds(250);
// Watch events waiting for one client are sent together up to this size.
constexpr size_t kChunkBytes = 256 * 1024;
constexpr int kDefaultWatchTimeoutSeconds = 1800;
// Open watches one user may hold. Each holds a store watcher and its queue of events; upstream
// leaves the bound to priority and fairness, which the sandbox does not have. A thousand is far
// above what real clients open (kubectl one, a controller a few per kind, the console one per
// kind it shows) and still bounds the memory one user can pin.
constexpr size_t kMaxWatchesPerUser = 1000;
// kube-apiserver sends a bookmark about once a minute to watchers that allow them.
constexpr auto kBookmarkInterval = std::chrono::seconds(60);

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) {
      end = path.size();
    }
    if (end > start) {
      parts.push_back(path.substr(start, end - start));
    }
    start = end + 1;
  }
  return parts;
}

http::Response not_found(const Resource& r, const std::string& name) {
  return status_with_details(404, "NotFound", group_resource(r) + " \"" + name + "\" not found",
                             name_details(r, name));
}

http::Response namespace_not_found(const std::string& ns) {
  return status_with_details(404, "NotFound", "namespaces \"" + ns + "\" not found",
                             {{"name", ns}, {"kind", "namespaces"}});
}

http::Response already_exists(const Resource& r, const std::string& name) {
  return status_with_details(409, "AlreadyExists",
                             group_resource(r) + " \"" + name + "\" already exists",
                             name_details(r, name));
}

http::Response conflict(const Resource& r, const std::string& name) {
  return status_with_details(
      409, "Conflict",
      "Operation cannot be fulfilled on " + group_resource(r) + " \"" + name +
          "\": the object has been modified; please apply your changes to the latest version and "
          "try again",
      name_details(r, name));
}

http::Response invalid(const Resource& r, const std::string& name,
                       const std::vector<registry::FieldError>& errors) {
  return invalid_status(r.group, r.kind, name, errors);
}

http::Response storage_failure(const Resource& r, const std::string& name,
                               const storage::Error& error) {
  switch (error.kind) {
    case storage::ErrorKind::NotFound:
      return not_found(r, name);
    case storage::ErrorKind::AlreadyExists:
      return already_exists(r, name);
    case storage::ErrorKind::Conflict:
      return conflict(r, name);
    case storage::ErrorKind::Expired:
      return status_with_details(410, "Expired",
                                 "The resourceVersion for the provided list is too old.", json());
    case storage::ErrorKind::TooLarge:
      return status_with_details(413, "RequestEntityTooLarge",
                                 "Request entity too large: " + error.message, json());
    default:
      return status_with_details(500, "InternalError", "Internal error occurred: " + error.message,
                                 {{"causes", json::array({{{"message", error.message}}})}});
  }
}

// The object as served: the stored JSON plus its resourceVersion.
json served_object(const storage::Object& stored) {
  json object = json::parse(stored.value, nullptr, false);
  if (object.is_discarded() || !object.is_object()) {
    return json::object();
  }
  object["metadata"]["resourceVersion"] = std::to_string(stored.mod_revision);
  return object;
}

// A response carrying one object, made from its stored text and revision (see served_json.h).
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

// Whether `a` and `b` are the same object but for the times of their managedFields entries.
bool only_managed_field_times_differ(const json& a, const json& b) {
  const json* fields_a = a.contains("metadata") ? &a["metadata"] : nullptr;
  const json* fields_b = b.contains("metadata") ? &b["metadata"] : nullptr;
  if (fields_a == nullptr || fields_b == nullptr || !fields_a->is_object() ||
      !fields_b->is_object()) {
    return false;
  }
  auto entries = [](const json& metadata) {
    json out = metadata.value("managedFields", json::array());
    for (auto& entry : out) {
      if (entry.is_object()) {
        entry.erase("time");
      }
    }
    return out;
  };
  if (entries(*fields_a) != entries(*fields_b)) {
    return false;
  }
  // The rest compared member by member: no copy of the (possibly deep) objects.
  auto same_except = [](const json& x, const json& y, const char* skipped) {
    auto counted = [&](const json& o) { return o.size() - (o.contains(skipped) ? 1 : 0); };
    if (counted(x) != counted(y)) {
      return false;
    }
    for (const auto& [key, value] : x.items()) {
      if (key == skipped) {
        continue;
      }
      auto other = y.find(key);
      if (other == y.end() || *other != value) {
        return false;
      }
    }
    return true;
  };
  return same_except(*fields_a, *fields_b, "managedFields") && same_except(a, b, "metadata");
}

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

// The object as stored: without resourceVersion (the store revision is the truth).
std::string stored_text(json& object) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object() || !meta->contains("resourceVersion")) {
    return object.dump();
  }
  // Taken out and put back rather than dumping a copy: objects may be deeply nested.
  json saved = std::move((*meta)["resourceVersion"]);
  meta->erase("resourceVersion");
  std::string text = object.dump();
  (*meta)["resourceVersion"] = std::move(saved);
  return text;
}

bool has_status_subresource(const Resource& r) {
  return r.subresource("status") != nullptr;
}

std::string list_prefix(const Resource& r, const std::string& ns) {
  return r.namespaced && !ns.empty() ? r.etcd_prefix + "/" + ns + "/" : r.etcd_prefix + "/";
}

// Where a list reads, as upstream's storage decides it: a continue token's revision and key, the
// exact resourceVersion (Exact, or the legacy exact read of a paged list), else the newest.
// Returns the answer when the parameters do not allow the read.
std::optional<http::Response> list_revision(const ListOptions& options, const std::string& prefix,
                                            int64_t current, int64_t& revision,
                                            std::string& start_key) {
  const std::string& rv = options.resource_version;
  if (!options.continue_token.empty()) {
    std::string error;
    auto token = decode_continue(options.continue_token, prefix, error);
    if (!token) {
      return bad_request("invalid continue token: " + error);
    }
    if (!rv.empty() && rv != "0") {
      return bad_request("specifying resource version is not allowed when using continue");
    }
    revision = token->revision;
    start_key = token->start_key;
    return std::nullopt;
  }
  const bool exact =
      options.resource_version_match == "Exact" ||
      (options.limit > 0 && options.resource_version_match.empty() && !rv.empty() && rv != "0");
  registry::FieldError rv_error;
  auto parsed = parse_resource_version(rv, rv_error);
  if (!parsed) {
    const std::string error = registry::render_field_errors({rv_error});
    // Exact reads go to the store, which answers 400; the watch cache's parse error has no
    // status and becomes a 500.
    return exact ? bad_request("invalid resource version: " + error)
                 : status_with_details(500, "", error, json());
  }
  if (*parsed > static_cast<uint64_t>(current)) {
    return too_large_resource_version(*parsed, current);
  }
  if (exact) {
    revision = static_cast<int64_t>(*parsed);
  }
  return std::nullopt;
}

bool is_service(const Resource& r) {
  return r.group.empty() && r.resource == "services";
}

// fieldValidation: Strict answers 400 for unknown or duplicate fields, Warn (the default when the
// parameter is absent) answers with Warning headers, Ignore checks nothing. Returns the warnings
// to attach, or sets `failure`.
std::optional<std::vector<std::string>> check_fields(const registry::FieldValidator& validator,
                                                     const Resource& r,
                                                     const http::Request& request,
                                                     const json& decoded, http::Response& failure) {
  std::string mode = request.query_value("fieldValidation", "Warn");
  if (mode != "Strict" && mode != "Warn" && mode != "Ignore") {
    failure = bad_request("fieldValidation parameter unsupported: " + mode);
    return std::nullopt;
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
    failure = bad_request(r.kind + " in version \"" + r.version + "\" cannot be handled as a " +
                          r.kind + ": " + report.decode_error->message);
    return std::nullopt;
  }
  if (mode == "Ignore") {
    return std::vector<std::string>{};
  }
  problems.insert(problems.end(), report.problems.begin(), report.problems.end());
  if (problems.empty()) {
    return std::vector<std::string>{};
  }
  if (mode == "Strict") {
    failure = bad_request(registry::strict_error_message(r.kind, r.version, problems));
    return std::nullopt;
  }
  return registry::warning_headers(problems);
}

// fieldValidation for custom resources: the fields the schema prunes are the unknown ones
// (prune() removes them from `object`); the same Strict / Warn / Ignore rules as above.
std::optional<std::vector<std::string>> check_custom_fields(const Resource& r,
                                                            const http::Request& request,
                                                            json& object, http::Response& failure) {
  std::string mode = request.query_value("fieldValidation", "Warn");
  if (mode != "Strict" && mode != "Warn" && mode != "Ignore") {
    failure = bad_request("fieldValidation parameter unsupported: " + mode);
    return std::nullopt;
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
    failure = bad_request(registry::strict_error_message(r.kind, r.version, problems));
    return std::nullopt;
  }
  return registry::warning_headers(problems);
}

// What custom resources and CRDs add to an object's defaults and validation.
void custom_defaults(const Resource& r, json& object) {
  if (r.custom && r.custom->structural) {
    r.custom->structural->apply_defaults(object);
  } else if (registry::is_crd(r)) {
    registry::default_crd(object);
  }
}

void custom_validation(const Resource& r, const json& object,
                       std::vector<registry::FieldError>& errors) {
  std::vector<registry::FieldError> more;
  if (r.custom && r.custom->structural) {
    more = r.custom->structural->validate(object);
  } else if (registry::is_crd(r)) {
    more = registry::validate_crd(object);
  }
  errors.insert(errors.end(), more.begin(), more.end());
}

// Whether defaulting may change an object of `r` (else the trace needs no copy to compare).
bool defaults_may_change(const Resource& r) {
  return registry::has_defaults(r) || (r.custom && r.custom->structural);
}

// Names in the request's trace the fields defaulting set, between `before` and `after`.
void note_defaults(const json& before, const json& after) {
  size_t more = 0;
  auto paths = registry::changed_paths(before, after, 20, &more);
  std::string text = paths.empty() ? "none" : "set " + registry::join(paths, ", ");
  if (more != 0) {
    text += " and " + std::to_string(more) + " more";
  }
  trace::note("defaults", std::move(text));
}

// A custom resource body of another kind or apiVersion: upstream's 422, which names the kind and
// group the body claims (its typer reads them from the object). Without a kind or version the
// typer fails first, and that is a 500.
std::optional<http::Response> custom_type_meta_invalid(const Resource& r, const json& object) {
  auto errors = registry::custom_type_meta_errors(r, object);
  if (errors.empty()) {
    return std::nullopt;
  }
  const json* kind = find_path(object, {"kind"});
  const json* api_version = find_path(object, {"apiVersion"});
  auto gv = parse_group_version(
      api_version && api_version->is_string() ? api_version->get<std::string>() : std::string());
  if (!kind || !kind->is_string() || kind->get_ref<const std::string&>().empty() || !gv) {
    return errors::internal_error("Object 'Kind' is missing in 'object has no kind field '")
        .response();
  }
  if (gv->version.empty()) {
    return errors::internal_error(
               "Object 'apiVersion' is missing in 'object has no apiVersion field'")
        .response();
  }
  return invalid_status(gv->group, kind->get<std::string>(),
                        string_at(object, {"metadata", "name"}), errors);
}

// Custom resources are defaulted when read back, as upstream does when it decodes them from
// storage: a default added to the CRD later shows on reads. `stored` keeps its revision.
void default_on_read(const Resource& r, storage::Object& stored) {
  if (!r.custom || !r.custom->structural) {
    return;
  }
  json object = json::parse(stored.value, nullptr, false);
  if (!object.is_object()) {
    return;
  }
  const json before = object;
  r.custom->structural->apply_defaults(object);
  if (object != before) {
    stored.value = object.dump();
  }
}

// The schema that field ownership and server-side apply walk: the built-in kind's, or a custom
// resource's from its CRD.
std::optional<patch::ObjectType> object_type_of(const Resource& r) {
  if (r.custom) {
    if (r.custom->typed_root.is_null()) {
      return std::nullopt;
    }
    return patch::ObjectType(registry::SchemaIndex::builtin(), &r.custom->typed_root);
  }
  return patch::ObjectType::builtin(r.group, r.version, r.kind);
}

void add_warnings(http::Response& response, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) {
    response.headers.emplace_back("Warning", w);
  }
}

// The Table options of a request: includeObject, and "now" for ages. On a bad includeObject
// `failure` is the 400 kube-apiserver answers.
std::optional<registry::TableOptions> table_options(const http::Request& request,
                                                    http::Response& failure) {
  std::string error;
  auto include = registry::parse_include_object(request.query_value("includeObject"), error);
  if (!include) {
    failure = bad_request(error);
    return std::nullopt;
  }
  registry::TableOptions options;
  options.include = *include;
  options.now = std::chrono::system_clock::now();
  return options;
}

// The labelSelector and fieldSelector of a list, watch or deletecollection.
struct Selection {
  registry::LabelSelector labels;
  registry::FieldSelector fields;
  bool empty() const { return labels.empty() && fields.empty(); }
  bool matches(const json& object) const {
    return labels.matches(object.value("/metadata/labels"_json_pointer, json())) &&
           fields.matches(object);
  }
};

// Parses the selectors; on failure `failure` is the 400 kube-apiserver answers (the label
// selector is decoded first, so its error wins).
std::optional<Selection> parse_selection(const Resource& r, const http::Request& request,
                                         http::Response& failure) {
  Selection selection;
  std::string error;
  auto labels = registry::LabelSelector::parse(request.query_value("labelSelector"), error);
  if (!labels) {
    failure = bad_request(error);
    return std::nullopt;
  }
  auto fields = registry::FieldSelector::parse(request.query_value("fieldSelector"), r, error);
  if (!fields) {
    failure = bad_request(error);
    return std::nullopt;
  }
  selection.labels = std::move(*labels);
  selection.fields = std::move(*fields);
  return selection;
}

// dryRun: nothing but "All" is accepted; true when the request asks for a dry run.
std::optional<bool> dry_run(const http::Request& request, const std::string& options_kind,
                            http::Response& failure) {
  auto it = request.query.find("dryRun");
  if (it == request.query.end()) {
    return false;
  }
  for (const auto& value : it->second) {
    if (value != "All") {
      failure = status_with_details(422, "Invalid",
                                    options_kind +
                                        ".meta.k8s.io \"\" is invalid: dryRun: "
                                        "Unsupported value: []string{\"" +
                                        value + "\"}: supported values: \"All\"",
                                    json::object());
      return std::nullopt;
    }
  }
  return !it->second.empty();
}

// The field manager of a write: ?fieldManager, else the User-Agent's product name, as upstream.
std::string field_manager(const http::Request& request) {
  std::string manager = request.query_value("fieldManager");
  return manager.empty() ? patch::default_field_manager(request.header("User-Agent")) : manager;
}

// Fields a write through this endpoint never owns: status through the main resource when the
// kind has a status subresource, spec through /status.
patch::FieldSet reset_fields(const Resource& r, const std::string& subresource) {
  patch::FieldSet set;
  if (subresource == "status") {
    set.insert({patch::field_element("spec")});
  } else if (subresource.empty() && has_status_subresource(r)) {
    set.insert({patch::field_element("status")});
  }
  return set;
}

// `now`: the managedFields entry's time.
patch::Writer writer_of(const Resource& r, const RequestInfo& info, const http::Request& request,
                        std::chrono::system_clock::time_point now) {
  return {field_manager(request), r.group_version(), info.subresource, registry::rfc3339(now),
          reset_fields(r, info.subresource)};
}

// `object` with its managedFields brought up to date for an Update by this request's manager.
json with_ownership(const Resource& r, const RequestInfo& info, const http::Request& request,
                    const json* live, const json& object,
                    std::chrono::system_clock::time_point now) {
  auto type = object_type_of(r);
  if (!type) {
    return object;
  }
  return patch::update_managed_fields(*type, live, object, writer_of(r, info, request, now));
}

http::Response status_from(const json& status) {
  return errors::Status::from_json(status).response();
}

// A CRD's scale paths (".spec.replicas") as JSON pointers ("/spec/replicas").
json::json_pointer scale_pointer(const std::string& path) {
  std::string pointer = path;
  std::replace(pointer.begin(), pointer.end(), '.', '/');
  return json::json_pointer(pointer.empty() || pointer.front() != '/' ? "/" + pointer : pointer);
}

// The Scale (autoscaling/v1) of a workload, as its scale subresource shows it; a custom
// resource's replicas and selector are read at the paths its CRD's subresources.scale names.
json scale_of(const Resource& r, const json& object) {
  const json& m = object.value("metadata", json::object());
  json meta = json::object();
  for (const char* key : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
    if (m.contains(key)) {
      meta[key] = m[key];
    }
  }
  int64_t replicas = 0;
  int64_t status_replicas = 0;
  std::string selector_text;
  if (r.custom) {
    auto integer_at = [&](const std::string& path) {
      json value = registry::eval_column_path(path, object);
      return value.is_number() ? value.get<int64_t>() : int64_t{0};
    };
    replicas = integer_at(r.custom->spec_replicas_path);
    status_replicas = integer_at(r.custom->status_replicas_path);
    if (!r.custom->label_selector_path.empty()) {
      json selector = registry::eval_column_path(r.custom->label_selector_path, object);
      if (selector.is_string()) {
        selector_text = selector.get<std::string>();
      }
    }
  } else {
    replicas = integer_at(object, {"spec", "replicas"}).value_or(0);
    status_replicas = integer_at(object, {"status", "replicas"}).value_or(0);
    const json selector = object.value("/spec/selector"_json_pointer, json());
    if (r.resource == "replicationcontrollers" && selector.is_object()) {
      for (const auto& [key, value] : selector.items()) {
        selector_text += (selector_text.empty() ? "" : ",") + key + "=" +
                         (value.is_string() ? value.get<std::string>() : "");
      }
    } else if (selector.is_object()) {
      std::string error;
      if (auto parsed = registry::LabelSelector::from_json(selector, error)) {
        selector_text = parsed->to_string();
      }
    }
  }
  json spec = json::object();
  if (replicas != 0) {
    spec["replicas"] = replicas;  // omitempty, as upstream
  }
  json status = {{"replicas", status_replicas}};
  if (!selector_text.empty()) {
    status["selector"] = selector_text;
  }
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", meta},
          {"spec", spec},
          {"status", status}};
}

// The workload with the replicas of `scale`; the Scale's resourceVersion becomes the object's
// precondition.
json with_scale(const Resource& r, const json& current, const json& scale) {
  json updated = current;
  const int64_t replicas = integer_at(scale, {"spec", "replicas"}).value_or(0);
  if (r.custom) {
    updated[scale_pointer(r.custom->spec_replicas_path)] = replicas;
  } else {
    updated["spec"]["replicas"] = replicas;
  }
  std::string rv = string_at(scale, {"metadata", "resourceVersion"});
  if (!rv.empty()) {
    updated["metadata"]["resourceVersion"] = rv;
  }
  return updated;
}

// Server-side apply on /scale works as upstream's scale handler does: the Scale is given the
// parent's ownership of spec.replicas (each entry that owns it, reduced to it), the apply runs on
// the Scale, and the Scale's ownership of spec.replicas is put back on the parent's entries.
const patch::FieldPath& replicas_path() {
  static const patch::FieldPath path = {patch::field_element("spec"),
                                        patch::field_element("replicas")};
  return path;
}

std::optional<patch::FieldSet> fields_of(const json& entry) {
  if (!entry.is_object() || !entry.contains("fieldsV1")) {
    return std::nullopt;
  }
  std::string error;
  return patch::FieldSet::from_fields_v1(entry["fieldsV1"], &error);
}

json scale_managed_fields(const json& parent) {
  patch::FieldSet replicas;
  replicas.insert(replicas_path());
  json out = json::array();
  for (const json& entry : parent.value("/metadata/managedFields"_json_pointer, json::array())) {
    auto set = fields_of(entry);
    if (set && set->has(replicas_path())) {
      json reduced = entry;
      reduced["fieldsV1"] = replicas.to_fields_v1();
      out.push_back(std::move(reduced));
    }
  }
  return out;
}

json parent_managed_fields(const json& parent, const json& scale, const std::string& api_version) {
  patch::FieldSet replicas;
  replicas.insert(replicas_path());
  json out = json::array();
  for (const json& entry : parent.value("/metadata/managedFields"_json_pointer, json::array())) {
    auto set = fields_of(entry);
    if (!set) {
      out.push_back(entry);
      continue;
    }
    patch::FieldSet rest = set->difference(replicas);
    if (!rest.empty()) {
      json kept = entry;
      kept["fieldsV1"] = rest.to_fields_v1();
      out.push_back(std::move(kept));
    }
  }
  for (const json& entry : scale.value("/metadata/managedFields"_json_pointer, json::array())) {
    auto set = fields_of(entry);
    if (!set || !set->has(replicas_path())) {
      continue;
    }
    auto same = std::find_if(out.begin(), out.end(), [&](const json& e) {
      return e.is_object() && string_at(e, {"manager"}) == string_at(entry, {"manager"}) &&
             string_at(e, {"operation"}) == string_at(entry, {"operation"}) &&
             string_at(e, {"subresource"}) == string_at(entry, {"subresource"});
    });
    if (same != out.end()) {
      auto owned = fields_of(*same);
      (*same)["fieldsV1"] = (owned ? owned->union_with(replicas) : replicas).to_fields_v1();
      (*same)["time"] = string_at(entry, {"time"}, string_at(*same, {"time"}));
    } else {
      json added = entry;
      added["apiVersion"] = api_version;
      added["fieldsV1"] = replicas.to_fields_v1();
      out.push_back(std::move(added));
    }
  }
  return out;
}

}  // namespace

// Watch streams -------------------------------------------------------------------------------

// A watch response body: JSON watch events, one chunk each, fed by a store watcher.
class WatchStream final : public http::ChunkStream {
 public:
  // `bookmark_type` is {"kind", "apiVersion"} of the BOOKMARK objects, or null for none.
  // `present` turns an object into what the event carries (itself, or a Table of one row).
  using Presenter = std::function<json(const json&)>;

  WatchStream(std::shared_ptr<store::Watcher> watcher, std::deque<std::string> initial,
              std::chrono::steady_clock::time_point deadline, json bookmark_type,
              int64_t requested_rv, Selection selection, Presenter present, std::string user)
      : user_(std::move(user)),
        selection_(std::move(selection)),
        present_(std::move(present)),
        requested_rv_(requested_rv),
        watcher_(std::move(watcher)),
        pending_(std::move(initial)),
        deadline_(deadline),
        bookmark_type_(std::move(bookmark_type)),
        last_bookmark_(std::chrono::steady_clock::now()) {}

  bool next(std::string& chunk) override {
    {
      std::lock_guard lock(mu_);
      if (!pending_.empty()) {
        chunk.clear();
        while (!pending_.empty() && chunk.size() < kChunkBytes) {
          chunk += pending_.front();
          pending_.pop_front();
        }
        return true;
      }
    }
    if (closed_ || !watcher_) {
      return false;
    }
    // Everything the watcher has waiting goes out in one chunk (up to kChunkBytes): a busy
    // watch costs one write per batch of events, not one per event.
    std::string out;
    store::WatchResponse response;
    while (out.size() < kChunkBytes && watcher_->try_next(response)) {
      if (response.created && !response.canceled) {
        continue;
      }
      if (response.is_progress_notify()) {
        if (bookmark_type_.is_null()) {
          continue;
        }
        // Every event up to this revision was delivered: a BOOKMARK says so.
        json object = bookmark_type_;
        object["metadata"] = {{"resourceVersion", std::to_string(response.header.revision)}};
        out += nlohmann::ordered_json{{"type", "BOOKMARK"}, {"object", object}}.dump() + "\n";
        continue;
      }
      if (response.canceled) {
        if (response.compact_revision > 0) {
          // As the watch cache words it: the requested revision, then the newest one gone.
          out += error_event(410, "Expired",
                             "too old resource version: " + std::to_string(requested_rv_) + " (" +
                                 std::to_string(response.compact_revision - 1) + ")");
        }
        finish();
        break;
      }
      for (const auto& e : response.events) {
        out += convert(e);
      }
    }
    if (out.empty()) {
      return false;
    }
    chunk = std::move(out);
    return true;
  }

  bool finished() const override {
    std::lock_guard lock(mu_);
    return (closed_ || (watcher_ && watcher_->finished())) && pending_.empty();
  }

  void set_wakeup(std::function<void()> wakeup) override {
    {
      std::lock_guard lock(mu_);
      wakeup_ = wakeup;
    }
    if (watcher_) {
      watcher_->set_notify(wakeup);
    }
  }

  void close() override { finish(); }

  // Called by the ticker: ends the watch at its deadline; asks for a bookmark now and then.
  void tick(std::chrono::steady_clock::time_point now) {
    if (now >= deadline_ && !closed_) {
      finish();
      return;
    }
    if (!bookmark_type_.is_null() && watcher_ && now - last_bookmark_ >= kBookmarkInterval) {
      last_bookmark_ = now;
      watcher_->request_progress();
    }
  }

  bool done() const { return closed_; }
  const std::string& user() const { return user_; }

 private:
  void finish() {
    std::function<void()> wake;
    {
      std::lock_guard lock(mu_);
      if (closed_) {
        return;
      }
      closed_ = true;
      wake = wakeup_;
    }
    if (watcher_) {
      watcher_->cancel();
    }
    if (wake) {
      wake();
    }
  }

  static std::string error_event(int code, const std::string& reason, const std::string& message) {
    nlohmann::ordered_json event = {{"type", "ERROR"},
                                    {"object", errors::failure(code, reason, message).document()}};
    return event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }

  // A store event as a watch event. With selectors, an object that starts matching is ADDED
  // and one that stops matching is DELETED, as kube-apiserver's watch cache does.
  std::string convert(const store::Event& e) const {
    if (selection_.empty() && !present_) {
      // Every event goes out as stored: no decoding.
      bool deleted = e.type == store::Event::Type::Delete;
      const store::KeyValue* kv = deleted ? (e.prev_kv ? &*e.prev_kv : nullptr) : &e.kv;
      if (kv == nullptr) {
        return "";
      }
      std::string line = deleted     ? "{\"type\":\"DELETED\",\"object\":"
                         : e.prev_kv ? "{\"type\":\"MODIFIED\",\"object\":"
                                     : "{\"type\":\"ADDED\",\"object\":";
      if (append_served_json(kv->value, e.kv.mod_revision, false, line)) {
        return line + "}\n";
      }
    }
    nlohmann::ordered_json event;
    json object;
    if (e.type == store::Event::Type::Delete) {
      if (!e.prev_kv) {
        return "";
      }
      object = served_object({e.prev_kv->key, e.prev_kv->value, e.kv.mod_revision});
      if (!selection_.empty() && !selection_.matches(object)) {
        return "";
      }
      event["type"] = "DELETED";
    } else {
      object = served_object({e.kv.key, e.kv.value, e.kv.mod_revision});
      bool now = selection_.empty() || selection_.matches(object);
      bool before = e.prev_kv.has_value() &&
                    (selection_.empty() ||
                     selection_.matches(served_object({e.prev_kv->key, e.prev_kv->value, 0})));
      if (!now && !before) {
        return "";
      }
      event["type"] = now ? (before ? "MODIFIED" : "ADDED") : "DELETED";
    }
    event["object"] = present_ ? present_(object) : object;
    return event.dump() + "\n";
  }

  const std::string user_;  // who opened it (the per-user watch limit)
  const Selection selection_;
  const Presenter present_;
  const int64_t requested_rv_;
  std::shared_ptr<store::Watcher> watcher_;
  mutable std::mutex mu_;  // protects pending_, wakeup_
  std::deque<std::string> pending_;
  std::function<void()> wakeup_;
  std::atomic<bool> closed_{false};
  const std::chrono::steady_clock::time_point deadline_;
  const json bookmark_type_;
  std::chrono::steady_clock::time_point last_bookmark_;  // used by the ticker thread only
};

// Ends watches at their deadline (timeoutSeconds) and on shutdown.
class WatchTicker {
 public:
  WatchTicker() : thread_([this] { run(); }) {}
  ~WatchTicker() {
    close_all();
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  void add(const std::shared_ptr<WatchStream>& stream) {
    std::lock_guard lock(mu_);
    streams_.push_back(stream);
  }

  size_t count() {
    std::lock_guard lock(mu_);
    size_t n = 0;
    for (auto& w : streams_) {
      if (auto s = w.lock(); s && !s->done()) {
        ++n;
      }
    }
    return n;
  }

  size_t count_for(const std::string& user) {
    std::lock_guard lock(mu_);
    size_t n = 0;
    for (auto& w : streams_) {
      if (auto s = w.lock(); s && !s->done() && s->user() == user) {
        ++n;
      }
    }
    return n;
  }

  void close_all() {
    std::vector<std::shared_ptr<WatchStream>> streams;
    {
      std::lock_guard lock(mu_);
      for (auto& w : streams_) {
        if (auto s = w.lock()) {
          streams.push_back(s);
        }
      }
    }
    for (auto& s : streams) {
      s->close();
    }
  }

 private:
  void run() {
    std::unique_lock lock(mu_);
    while (!stop_) {
      cv_.wait_for(lock, kWatchTick);
      auto now = std::chrono::steady_clock::now();
      std::vector<std::shared_ptr<WatchStream>> live;
      for (auto it = streams_.begin(); it != streams_.end();) {
        auto s = it->lock();
        if (!s || s->done()) {
          it = streams_.erase(it);
        } else {
          live.push_back(s);
          ++it;
        }
      }
      lock.unlock();
      for (auto& s : live) {
        run_guarded("the watch ticker", [&] { s->tick(now); });
      }
      lock.lock();
    }
  }

  std::mutex mu_;  // protects streams_, stop_
  std::condition_variable cv_;
  std::vector<std::weak_ptr<WatchStream>> streams_;
  bool stop_ = false;
  std::thread thread_;
};

// Routing --------------------------------------------------------------------------------------

// A boolean query parameter as Go's strconv.ParseBool reads it (kube-apiserver's decoding).
bool query_flag(const http::Request& request, const std::string& name) {
  static const std::set<std::string> kTrue = {"1", "t", "T", "true", "TRUE", "True"};
  return kTrue.count(request.query_value(name)) != 0;
}

std::optional<RequestInfo> parse_resource_path(const http::Request& request) {
  auto parts = split_path(request.path);
  RequestInfo info;
  size_t i = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    info.version = parts[1];
    i = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    info.group = parts[1];
    info.version = parts[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  bool watch_path = false;
  if (i < parts.size() && parts[i] == "watch") {
    watch_path = true;
    ++i;
  }
  std::vector<std::string> rest(parts.begin() + static_cast<long>(i), parts.end());
  if (rest.empty()) {
    return std::nullopt;  // discovery
  }
  // namespaces/<ns>/<resource>[/<name>[/<sub>]], unless it is the namespace itself:
  // namespaces, namespaces/<name>, namespaces/<name>/{status,finalize}.
  if (rest[0] == "namespaces" && rest.size() >= 3 &&
      !(rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize"))) {
    info.namespace_ = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.size() > 3) {
    return std::nullopt;
  }
  info.resource = rest[0];
  if (rest.size() >= 2) {
    info.name = rest[1];
  }
  if (rest.size() == 3) {
    info.subresource = rest[2];
  }
  const std::string& m = request.method;
  bool watch_param = query_flag(request, "watch");
  if (m == "GET" || m == "HEAD") {
    if (watch_path || watch_param) {
      info.verb = "watch";
    } else {
      info.verb = info.name.empty() ? "list" : "get";
    }
  } else if (m == "POST") {
    info.verb = "create";
  } else if (m == "PUT") {
    info.verb = "update";
  } else if (m == "PATCH") {
    info.verb = "patch";
  } else if (m == "DELETE") {
    info.verb = info.name.empty() ? "deletecollection" : "delete";
  } else {
    info.verb = "unknown";
  }
  return info;
}

ResourceHandler::ResourceHandler(storage::Storage& storage, const filters::TokenTable& tokens,
                                 std::function<void(const std::string&)> namespace_terminating,
                                 const common::Clock& clock)
    : storage_(storage),
      tokens_(tokens),
      clock_(clock),
      namespace_terminating_(std::move(namespace_terminating)),
      ticker_(std::make_shared<WatchTicker>()),
      field_validator_(std::make_unique<registry::FieldValidator>()),
      service_ips_(std::make_unique<registry::ServiceIpAllocator>()) {}

void ResourceHandler::load_service_allocations() {
  storage::ListResult services;
  if (storage_.list("/registry/services/specs/", "", 0, 0, services)) {
    return;
  }
  std::vector<json> objects;
  for (const auto& item : services.items) {
    objects.push_back(json::parse(item.value, nullptr, false));
  }
  service_ips_->rebuild(objects);
}

ResourceHandler::~ResourceHandler() = default;

void ResourceHandler::close_watches() {
  ticker_->close_all();
}

size_t ResourceHandler::open_watches() const {
  return ticker_->count();
}

std::optional<http::Response> ResourceHandler::serve(http::Request& request,
                                                     const registry::Snapshot& snapshot,
                                                     const RequestInfo* known) {
  std::optional<RequestInfo> parsed;
  if (known == nullptr) {
    parsed = parse_resource_path(request);
    if (!parsed) {
      return std::nullopt;
    }
  }
  const RequestInfo* info = known != nullptr ? known : &*parsed;
  const Resource* r = snapshot.find(info->group, info->version, info->resource);
  if (r == nullptr) {
    return status_response(404, "NotFound", "the server could not find the requested resource",
                           true);
  }
  http::Response response = dispatch(*r, *info, request, snapshot);
  // Upstream warns on every request made through a deprecated version, failed ones included.
  if (auto deprecated = registry::deprecation_warning(r->group, r->version, r->kind)) {
    add_warnings(response, registry::warning_headers({*deprecated}));
  }
  return response;
}

http::Response ResourceHandler::dispatch(const Resource& r, const RequestInfo& info,
                                         http::Request& request,
                                         const registry::Snapshot& snapshot) {
  if (!info.namespace_.empty() && !r.namespaced) {
    return status_response(404, "NotFound", "the server could not find the requested resource",
                           true);
  }
  if (!info.subresource.empty()) {
    const registry::Subresource* sub = r.subresource(info.subresource);
    if (sub == nullptr) {
      return status_response(404, "NotFound", "the server could not find the requested resource",
                             true);
    }
    if (info.subresource != "status" && info.subresource != "scale") {
      return status_with_details(405, "MethodNotAllowed",
                                 info.subresource + " is not supported on resources of kind \"" +
                                     group_resource(r) + "\" by this sandbox yet",
                                 {{"group", r.group}, {"kind", group_resource(r)}});
    }
  }
  if (info.verb == "create" && info.subresource.empty() && is_review(r)) {
    http::Response failure;
    auto body = decode_object_body(request, r, *field_validator_, failure);
    if (!body) {
      return failure;
    }
    auto warnings = check_fields(*field_validator_, r, request, *body, failure);
    if (!warnings) {
      return failure;
    }
    http::Response answer = serve_review(r, request, *body, tokens_);
    add_warnings(answer, *warnings);
    return answer;
  }
  if (r.etcd_prefix.empty()) {
    return status_with_details(
        405, "MethodNotAllowed",
        info.verb + " is not supported on resources of kind \"" + group_resource(r) + "\"",
        {{"group", r.group}, {"kind", group_resource(r)}});
  }
  const std::vector<std::string>& verbs =
      info.subresource.empty() ? r.verbs : r.subresource(info.subresource)->verbs;
  std::string verb =
      info.verb == "deletecollection" && !info.subresource.empty() ? "delete" : info.verb;
  // Upstream routes only the methods a path serves: PUT or PATCH on a collection, POST on an
  // object and any write the resource does not support find no route.
  const bool write = verb != "get" && verb != "list" && verb != "watch";
  const bool collection_write = info.name.empty() && (verb == "update" || verb == "patch");
  const bool named_create = !info.name.empty() && verb == "create" && info.subresource.empty();
  if (collection_write || named_create ||
      (write && std::find(verbs.begin(), verbs.end(), verb) == verbs.end())) {
    return status_response(405, "MethodNotAllowed",
                           "the server does not allow this method on the requested resource", true);
  }
  if (std::find(verbs.begin(), verbs.end(), verb) == verbs.end()) {
    return status_with_details(
        405, "MethodNotAllowed",
        verb + " is not supported on resources of kind \"" + group_resource(r) + "\"",
        {{"group", r.group}, {"kind", group_resource(r)}});
  }
  if (info.subresource == "scale" && (info.verb == "get" || info.verb == "update")) {
    return scale(r, info, request);
  }
  if (info.verb == "get") {
    return get(r, info, request);
  }
  if (info.verb == "list") {
    return list(r, info, request);
  }
  if (info.verb == "watch") {
    return watch(r, info, request);
  }
  if (info.verb == "create") {
    return create(r, info, request, snapshot);
  }
  if (info.verb == "update") {
    return update(r, info, request);
  }
  if (info.verb == "delete") {
    return remove(r, info, request);
  }
  if (info.verb == "deletecollection") {
    return remove_collection(r, info, request);
  }
  return patch(r, info, request);
}

// Verbs ----------------------------------------------------------------------------------------

http::Response ResourceHandler::get(const Resource& r, const RequestInfo& info,
                                    const http::Request& request) {
  storage::Object stored;
  if (auto error = storage_.get(r.storage_key(info.namespace_, info.name), stored)) {
    return storage_failure(r, info.name, error);
  }
  default_on_read(r, stored);
  if (wants_table(request.header("Accept"))) {
    http::Response failure;
    auto options = table_options(request, failure);
    if (!options) {
      return failure;
    }
    return json_response(200, registry::to_table_for_object(r, served_object(stored), *options));
  }
  return object_response(200, stored.value, stored.mod_revision);
}

http::Response ResourceHandler::list(const Resource& r, const RequestInfo& info,
                                     const http::Request& request) {
  std::string prefix = list_prefix(r, info.namespace_);
  http::Response failure;
  auto selection = parse_selection(r, request, failure);
  if (!selection) {
    return failure;
  }
  auto options = decode_list_options(request, false, failure);
  if (!options) {
    return failure;
  }
  int64_t limit = std::max<int64_t>(0, options->limit);
  int64_t revision = 0;
  std::string start_key;
  const std::string& token = options->continue_token;
  if (auto answer =
          list_revision(*options, prefix, storage_.current_revision(), revision, start_key)) {
    return *answer;
  }
  // Read pages at one revision until `limit` objects match (or the prefix ends).
  std::vector<storage::Object> kept;
  bool more = false;
  int64_t remaining = 0;
  int64_t read_at = revision;
  std::string cursor = start_key;
  while (true) {
    storage::ListResult page;
    int64_t page_limit = selection->empty() || limit == 0 ? limit : std::max<int64_t>(limit, 256);
    if (auto error = storage_.list(prefix, cursor, page_limit, read_at, page)) {
      if (error.kind == storage::ErrorKind::Expired && !token.empty()) {
        return status_with_details(
            410, "Expired",
            "The provided continue parameter is too old to display a consistent list result. "
            "You can start a new list without the continue parameter.",
            json());
      }
      return storage_failure(r, "", error);
    }
    read_at = page.revision;
    // Taken before the matching items are moved out of the page.
    std::string last_key = page.items.empty() ? std::string() : page.items.back().key;
    size_t used = 0;
    for (auto& item : page.items) {
      ++used;
      if (!selection->empty() && !selection->matches(served_object(item))) {
        continue;
      }
      kept.push_back(std::move(item));
      if (limit > 0 && static_cast<int64_t>(kept.size()) == limit) {
        break;
      }
    }
    bool page_left = used < page.items.size() || page.more;
    if (limit > 0 && static_cast<int64_t>(kept.size()) == limit) {
      more = page_left;
      remaining = page.remaining + static_cast<int64_t>(page.items.size() - used);
      break;
    }
    if (!page.more || page.items.empty()) {
      break;
    }
    cursor = last_key + std::string(1, '\0');
  }
  for (auto& item : kept) {
    default_on_read(r, item);
  }
  json metadata = {{"resourceVersion", std::to_string(read_at)}};
  if (more && !kept.empty()) {
    // Resume just after the last key returned: append a zero byte, as upstream does.
    std::string next = kept.back().key.substr(prefix.size()) + std::string(1, '\0');
    metadata["continue"] = encode_continue(read_at, next);
    if (selection->empty()) {
      metadata["remainingItemCount"] = remaining;  // upstream gives no count with selectors
    }
  }
  if (wants_table(request.header("Accept"))) {
    auto options = table_options(request, failure);
    if (!options) {
      return failure;
    }
    options->resource_version = metadata["resourceVersion"];
    options->continue_token = metadata.value("continue", std::string());
    if (metadata.contains("remainingItemCount")) {
      options->remaining_item_count = metadata["remainingItemCount"].get<int64_t>();
    }
    std::vector<json> objects;
    objects.reserve(kept.size());
    for (const auto& item : kept) {
      objects.push_back(served_object(item));
    }
    return json_response(200, registry::to_table(r, objects, *options));
  }
  // The body as dump() would write {"apiVersion", "items", "kind", "metadata"}, the items made
  // from their stored text; upstream's list items carry no apiVersion/kind.
  size_t size = 128;
  for (const auto& item : kept) {
    size += item.value.size() + 32;
  }
  http::Response response;
  response.set_header("Content-Type", "application/json");
  std::string& body = response.body;
  body.reserve(size);
  body += "{\"apiVersion\":" + json(r.group_version()).dump() + ",\"items\":[";
  for (size_t i = 0; i < kept.size(); ++i) {
    if (i > 0) {
      body += ',';
    }
    if (!append_served_json(kept[i].value, kept[i].mod_revision, true, body)) {
      json object = served_object(kept[i]);
      object.erase("apiVersion");
      object.erase("kind");
      body += object.dump();
    }
  }
  body += "],\"kind\":" + json(r.kind + "List").dump() + ",\"metadata\":" + metadata.dump() + "}";
  return response;
}

http::Response ResourceHandler::watch(const Resource& r, const RequestInfo& info,
                                      const http::Request& request) {
  std::string prefix = info.name.empty() ? list_prefix(r, info.namespace_)
                                         : r.storage_key(info.namespace_, info.name);
  http::Response failure;
  auto selection = parse_selection(r, request, failure);
  if (!selection) {
    return failure;
  }
  WatchStream::Presenter present;
  if (wants_table(request.header("Accept"))) {
    auto options = table_options(request, failure);
    if (!options) {
      return failure;
    }
    present = [resource = r, options = *options](const json& object) {
      registry::TableOptions now = options;
      now.now = std::chrono::system_clock::now();
      if (resource.custom && resource.custom->structural) {
        json defaulted = object;
        resource.custom->structural->apply_defaults(defaulted);
        return registry::to_table_for_object(resource, defaulted, now);
      }
      return registry::to_table_for_object(resource, object, now);
    };
  } else if (r.custom && r.custom->structural) {
    present = [schema = r.custom->structural](const json& object) {
      json defaulted = object;
      schema->apply_defaults(defaulted);
      return defaulted;
    };
  }
  auto options = decode_list_options(request, true, failure);
  if (!options) {
    return failure;
  }
  registry::FieldError rv_error;
  auto rv = parse_resource_version(options->resource_version, rv_error);
  if (!rv) {
    // The watch cache's parse error is a storage error without a status, which the watch
    // handler passes on as a 500.
    return status_with_details(500, "", registry::render_field_errors({rv_error}), json());
  }
  // Past the newest revision the store could ever reach: upstream would wait for it, then give up.
  if (*rv >= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return too_large_resource_version(*rv, storage_.current_revision());
  }
  if (ticker_->count_for(request.user) >= kMaxWatchesPerUser) {
    http::Response busy =
        status_with_details(429, "TooManyRequests", "Too many requests, please try again later.",
                            {{"retryAfterSeconds", 1}});
    busy.set_header("Retry-After", "1");
    return busy;
  }
  std::deque<std::string> initial;
  int64_t from = 0;
  if (*rv == 0) {
    // The current state as ADDED events, then every change after it.
    storage::ListResult result;
    if (auto error = storage_.list(prefix, "", 0, 0, result)) {
      return storage_failure(r, info.name, error);
    }
    for (const auto& item : result.items) {
      if (!info.name.empty() && item.key != prefix) {
        continue;
      }
      if (selection->empty() && !present) {
        std::string line = "{\"type\":\"ADDED\",\"object\":";
        if (append_served_json(item.value, item.mod_revision, false, line)) {
          initial.push_back(line + "}\n");
          continue;
        }
      }
      json object = served_object(item);
      if (!selection->empty() && !selection->matches(object)) {
        continue;
      }
      nlohmann::ordered_json event = {{"type", "ADDED"},
                                      {"object", present ? present(object) : object}};
      initial.push_back(event.dump() + "\n");
    }
    from = result.revision + 1;
  } else {
    from = static_cast<int64_t>(*rv) + 1;
  }
  const int64_t timeout =
      watch_timeout_seconds(options->timeout_seconds, kDefaultWatchTimeoutSeconds);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
  auto watcher = storage_.watch(r.etcd_prefix + "/", prefix, !info.name.empty(), from);
  json bookmark_type;
  if (query_flag(request, "allowWatchBookmarks")) {
    bookmark_type = {{"kind", r.kind}, {"apiVersion", r.group_version()}};
  }
  auto stream =
      std::make_shared<WatchStream>(watcher, std::move(initial), deadline, bookmark_type, from - 1,
                                    std::move(*selection), std::move(present), request.user);
  ticker_->add(stream);
  http::Response response;
  response.status = 200;
  response.set_header("Content-Type", "application/json");
  response.set_header("Transfer-Encoding", "chunked");
  response.stream = stream;
  return response;
}

http::Response ResourceHandler::create(const Resource& r, const RequestInfo& info,
                                       const http::Request& request, const registry::Snapshot&) {
  if (r.custom && r.custom->terminating) {
    return status_with_details(405, "MethodNotAllowed",
                               "create not allowed while custom resource definition is terminating",
                               {{"group", r.group}, {"kind", r.resource}});
  }
  http::Response failure;
  auto body = decode_object_body(request, r, *field_validator_, failure);
  if (!body) {
    return failure;
  }
  auto warnings = r.custom ? check_custom_fields(r, request, *body, failure)
                           : check_fields(*field_validator_, r, request, *body, failure);
  if (!warnings) {
    return failure;
  }
  return create_object(r, info, request, std::move(*body), *warnings, false);
}

http::Response ResourceHandler::create_object(const Resource& r, const RequestInfo& info,
                                              const http::Request& request, json object,
                                              const std::vector<std::string>& warnings,
                                              bool owned) {
  http::Response failure;
  auto dry = dry_run(request, "CreateOptions", failure);
  if (!dry) {
    return failure;
  }
  if (!owned) {
    if (auto invalid = patch::validate_field_manager(
            "CreateOptions", request.query_value("fieldManager"), false, false)) {
      return status_from(*invalid);
    }
  }
  json* body = &object;
  json& meta = (*body)["metadata"];
  std::string ns = info.namespace_;
  if (r.namespaced) {
    std::string body_ns = string_at(meta, {"namespace"});
    if (!body_ns.empty() && !ns.empty() && body_ns != ns) {
      return bad_request(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
    if (ns.empty()) {
      ns = body_ns;
    }
    meta["namespace"] = ns;
  } else {
    meta.erase("namespace");
  }
  std::string name = string_at(meta, {"name"});
  std::string generate = string_at(meta, {"generateName"});
  if (r.namespaced) {
    storage::Object ns_object;
    if (auto e = storage_.get("/registry/namespaces/" + ns, ns_object)) {
      if (e.kind == storage::ErrorKind::NotFound) {
        return namespace_not_found(ns);
      }
      return storage_failure(r, name, e);
    }
    json ns_json = json::parse(ns_object.value, nullptr, false);
    if (ns_json.is_object() && ns_json.value("/status/phase"_json_pointer, "") == "Terminating") {
      std::string shown = name.empty() ? generate : name;
      return status_with_details(
          403, "Forbidden",
          group_resource(r) + " \"" + shown +
              "\" is forbidden: unable to create new content in namespace " + ns +
              " because it is being terminated",
          {{"name", shown},
           {"kind", r.resource},
           {"causes", json::array({{{"reason", "NamespaceTerminating"},
                                    {"message", "namespace " + ns + " is being terminated"},
                                    {"field", "metadata.namespace"}}})}});
    }
  }

  meta["uid"] = registry::new_uid();
  meta["creationTimestamp"] = registry::rfc3339(std::chrono::system_clock::now());
  meta.erase("resourceVersion");
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  if (registry::tracks_generation(r.group, r.resource) || r.custom) {
    meta["generation"] = 1;
  } else {
    meta.erase("generation");
  }
  if (has_status_subresource(r) && !(r.group.empty() && r.resource == "pods")) {
    body->erase("status");  // status is the controllers' to write, through /status
  }
  bool generated = name.empty() && !generate.empty();
  if (generated) {
    meta["name"] = generate + registry::random_name_suffix();
  }
  if (r.custom) {
    if (auto refused = custom_type_meta_invalid(r, *body)) {
      return *refused;
    }
  }
  const bool compare = trace::active() && defaults_may_change(r);
  const json undefaulted = compare ? *body : json();
  registry::apply_defaults(r, *body);
  custom_defaults(r, *body);
  if (compare) {
    note_defaults(undefaulted, *body);
  } else {
    trace::note("defaults", "none");
  }
  auto errors = registry::validate_create(r, *body);
  custom_validation(r, *body, errors);
  if (!errors.empty()) {
    return invalid(r, string_at(meta, {"name"}), errors);
  }
  if (!owned) {
    *body = with_ownership(r, info, request, nullptr, *body, clock_.system_now());
  }
  if (is_service(r)) {
    if (auto errors = service_ips_->allocate_service(*body); !errors.empty()) {
      return invalid(r, string_at(*body, {"metadata", "name"}), errors);
    }
  }
  if (*dry) {
    // Everything ran but nothing is kept: the addresses go back, no revision is taken.
    if (is_service(r)) {
      service_ips_->release_service(*body);
    }
    http::Response would_be = json_response(201, *body);
    add_warnings(would_be, warnings);
    return would_be;
  }
  json& named = (*body)["metadata"];
  for (int attempt = 0; attempt < kGenerateNameAttempts; ++attempt) {
    if (generated && attempt > 0) {
      named["name"] = generate + registry::random_name_suffix();
    }
    std::string final_name = string_at(named, {"name"});
    int64_t revision = 0;
    std::string text = stored_text(*body);
    auto e = storage_.create(r.storage_key(ns, final_name), text, revision);
    if (!e) {
      http::Response created = object_response(201, text, revision);
      add_warnings(created, warnings);
      return created;
    }
    if (e.kind == storage::ErrorKind::AlreadyExists && generated) {
      continue;  // another name from generateName
    }
    if (is_service(r)) {
      service_ips_->release_service(*body);
    }
    return storage_failure(r, final_name, e);
  }
  if (is_service(r)) {
    service_ips_->release_service(*body);
  }
  return status_with_details(
      409, "AlreadyExists",
      group_resource(r) + " \"" + string_at(named, {"name"}) +
          "\" already exists, the server was not able to generate a unique name for the object",
      name_details(r, string_at(named, {"name"})));
}

http::Response ResourceHandler::update(const Resource& r, const RequestInfo& info,
                                       const http::Request& request) {
  http::Response failure;
  auto body = decode_object_body(request, r, *field_validator_, failure);
  if (!body) {
    return failure;
  }
  auto warnings = r.custom ? check_custom_fields(r, request, *body, failure)
                           : check_fields(*field_validator_, r, request, *body, failure);
  if (!warnings) {
    return failure;
  }
  storage::Object stored;
  if (auto e = storage_.get(r.storage_key(info.namespace_, info.name), stored)) {
    return storage_failure(r, info.name, e);
  }
  return update_object(r, info, request, std::move(*body), stored, *warnings, false);
}

http::Response ResourceHandler::update_object(const Resource& r, const RequestInfo& info,
                                              const http::Request& request, json object,
                                              const storage::Object& stored,
                                              const std::vector<std::string>& warnings, bool owned,
                                              bool* raced) {
  http::Response failure;
  auto dry = dry_run(request, info.verb == "patch" ? "PatchOptions" : "UpdateOptions", failure);
  if (!dry) {
    return failure;
  }
  if (!owned && info.verb != "patch") {
    if (auto invalid = patch::validate_field_manager(
            "UpdateOptions", request.query_value("fieldManager"), false, false)) {
      return status_from(*invalid);
    }
  }
  json* body = &object;
  json& meta = (*body)["metadata"];
  std::string body_name = string_at(meta, {"name"});
  if (body_name != info.name) {
    return bad_request("the name of the object (" + body_name +
                       ") does not match the name on the URL (" + info.name + ")");
  }
  std::string key = r.storage_key(info.namespace_, info.name);
  json current = json::parse(stored.value);
  if (r.custom) {
    custom_defaults(r, current);  // as read back: defaults alone are no change
  }
  std::string rv = string_at(meta, {"resourceVersion"});
  if (!rv.empty() && rv != std::to_string(stored.mod_revision)) {
    return conflict(r, info.name);
  }
  json updated;
  if (info.subresource == "status") {
    updated = current;
    if (body->contains("status")) {
      updated["status"] = (*body)["status"];
    } else {
      updated.erase("status");
    }
    if (owned && meta.contains("managedFields")) {
      updated["metadata"]["managedFields"] = meta["managedFields"];  // as apply recorded them
    }
  } else {
    updated = *body;
    json& m = updated["metadata"];
    const json& old = current["metadata"];
    for (const char* kept : {"uid", "creationTimestamp", "deletionTimestamp",
                             "deletionGracePeriodSeconds", "generation"}) {
      if (old.contains(kept)) {
        m[kept] = old[kept];
      } else {
        m.erase(kept);
      }
    }
    if (r.namespaced) {
      m["namespace"] = info.namespace_;
    }
    if (has_status_subresource(r)) {
      if (current.contains("status")) {
        updated["status"] = current["status"];
      } else {
        updated.erase("status");
      }
    }
    registry::DefaultingContext context;
    context.phase = registry::DefaultingPhase::Update;
    const bool compare = trace::active() && defaults_may_change(r);
    const json undefaulted = compare ? updated : json();
    registry::apply_defaults(r, updated, context);
    custom_defaults(r, updated);
    if (compare) {
      note_defaults(undefaulted, updated);
    } else {
      trace::note("defaults", "none");
    }
    if (registry::tracks_generation(r.group, r.resource) &&
        updated.value("spec", json()) != current.value("spec", json())) {
      m["generation"] = integer_at(old, {"generation"}).value_or(0) + 1;
    } else if (r.custom) {
      // Any change outside metadata is a new generation of a custom resource.
      json a = updated;
      json b = current;
      a.erase("metadata");
      b.erase("metadata");
      if (a != b) {
        m["generation"] = integer_at(old, {"generation"}).value_or(0) + 1;
      }
    }
    if (r.group.empty() && r.resource == "namespaces") {
      updated["spec"] = current.value("spec", json::object());
    }
  }
  if (r.custom) {
    if (auto refused = custom_type_meta_invalid(r, updated)) {
      return *refused;
    }
  }
  auto errors = registry::validate_update(r, updated, current);
  custom_validation(r, updated, errors);
  if (!errors.empty()) {
    return invalid(r, info.name, errors);
  }
  if (!owned) {
    updated = with_ownership(r, info, request, &current, updated, clock_.system_now());
  }
  updated["metadata"].erase("resourceVersion");  // the store revision; compared without it
  if (only_managed_field_times_differ(updated, current)) {
    // As upstream: a write that changes nothing but the time of a managedFields entry (e.g. the
    // same apply again) is a no-op, not a new revision.
    updated["metadata"]["managedFields"] = current["metadata"]["managedFields"];
  }
  if (updated == current) {
    http::Response same = object_response(200, stored.value, stored.mod_revision);  // unchanged
    add_warnings(same, warnings);
    return same;
  }
  if (*dry) {
    updated["metadata"]["resourceVersion"] = std::to_string(stored.mod_revision);
    http::Response would_be = json_response(200, updated);
    add_warnings(would_be, warnings);
    return would_be;
  }
  if (is_service(r) && info.subresource.empty()) {
    if (auto errors = service_ips_->update_service(current, updated); !errors.empty()) {
      return invalid(r, info.name, errors);
    }
  }
  // Removing the last finalizer of an object that is being deleted deletes it.
  const json& m = updated["metadata"];
  bool deleting = m.contains("deletionTimestamp");
  bool finalizers =
      (m.contains("finalizers") && m["finalizers"].is_array() && !m["finalizers"].empty()) ||
      (find_path(updated, {"spec", "finalizers"}) != nullptr &&
       find_path(updated, {"spec", "finalizers"})->is_array() &&
       !find_path(updated, {"spec", "finalizers"})->empty() && r.group.empty() &&
       r.resource == "namespaces");
  int64_t revision = 0;
  if (deleting && !finalizers) {
    if (auto e = storage_.remove(key, stored.mod_revision, revision)) {
      return storage_failure(r, info.name, e);
    }
    updated["metadata"]["resourceVersion"] = std::to_string(revision);
    return json_response(200, updated);
  }
  std::string text = stored_text(updated);
  if (auto e = storage_.update(key, text, stored.mod_revision, revision)) {
    if (e.kind == storage::ErrorKind::Conflict && raced != nullptr) {
      *raced = true;
    }
    return storage_failure(r, info.name, e);
  }
  http::Response response = object_response(200, text, revision);
  add_warnings(response, warnings);
  return response;
}

http::Response ResourceHandler::remove(const Resource& r, const RequestInfo& info,
                                       const http::Request& request) {
  std::string key = r.storage_key(info.namespace_, info.name);
  storage::Object stored;
  if (auto e = storage_.get(key, stored)) {
    return storage_failure(r, info.name, e);
  }
  http::Response failure;
  auto options = decode_delete_options(request, *field_validator_, failure);
  if (!options) {
    return failure;
  }
  const bool dry = !options->dry_run.empty();
  json current = json::parse(stored.value, nullptr, false);
  if (!current.is_object()) {
    current = json::object();
  }
  if (!current.contains("metadata") || !current["metadata"].is_object()) {
    current["metadata"] = json::object();
  }
  if (auto failed = failed_precondition(r, info.name, *options, current["metadata"],
                                        std::to_string(stored.mod_revision))) {
    return *failed;
  }
  json& meta = current["metadata"];
  bool is_namespace = r.group.empty() && r.resource == "namespaces";
  if (is_namespace &&
      (info.name == "default" || info.name == "kube-system" || info.name == "kube-public")) {
    return status_with_details(
        403, "Forbidden",
        "namespaces \"" + info.name + "\" is forbidden: this namespace may not be deleted",
        name_details(r, info.name));
  }
  if (registry::is_crd(r) && !meta.contains("deletionTimestamp")) {
    // As upstream's CRD storage: the first delete hands the CRD to the cleanup finalizer, which
    // deletes its custom resources before the CRD goes.
    json& list = meta["finalizers"];
    if (!list.is_array()) {
      list = json::array();
    }
    if (std::find(list.begin(), list.end(), json(registry::kCrdCleanupFinalizer)) == list.end()) {
      list.push_back(registry::kCrdCleanupFinalizer);
    }
    json& status = current["status"];
    if (!status.is_object()) {
      status = json::object();
    }
    json& conditions = status["conditions"];
    if (!conditions.is_array()) {
      conditions = json::array();
    }
    json terminating = {{"type", "Terminating"},
                        {"status", "True"},
                        {"lastTransitionTime", registry::rfc3339(std::chrono::system_clock::now())},
                        {"reason", "InstanceDeletionPending"},
                        {"message",
                         "CustomResourceDefinition marked for deletion; CustomResource deletion "
                         "will begin soon"}};
    auto same = std::find_if(conditions.begin(), conditions.end(), [](const json& c) {
      return c.is_object() && c.value("type", "") == "Terminating";
    });
    if (same == conditions.end()) {
      conditions.push_back(std::move(terminating));
    } else {
      *same = std::move(terminating);
    }
  }
  bool finalizers =
      meta.contains("finalizers") && meta["finalizers"].is_array() && !meta["finalizers"].empty();
  const json* spec_list = find_path(current, {"spec", "finalizers"});
  bool spec_finalizers =
      is_namespace && spec_list != nullptr && spec_list->is_array() && !spec_list->empty();
  int64_t revision = 0;
  if (dry) {
    // What would happen, without doing it: marked when finalizers hold it, else gone.
    if ((finalizers || spec_finalizers) && !meta.contains("deletionTimestamp")) {
      meta["deletionTimestamp"] = registry::rfc3339(std::chrono::system_clock::now());
      meta["deletionGracePeriodSeconds"] = 0;
      if (is_namespace) {
        current["status"]["phase"] = "Terminating";
      }
    }
    meta["resourceVersion"] = std::to_string(stored.mod_revision);
    if (finalizers || spec_finalizers) {
      return json_response(200, current);
    }
    return deleted_response(r, current);
  }
  if (finalizers || spec_finalizers) {
    // Graceful: mark it; whoever owns the finalizers finishes the deletion.
    if (!meta.contains("deletionTimestamp")) {
      meta["deletionTimestamp"] = registry::rfc3339(std::chrono::system_clock::now());
      meta["deletionGracePeriodSeconds"] = 0;
      if (is_namespace) {
        current["status"]["phase"] = "Terminating";
      }
      if (auto e = storage_.update(key, stored_text(current), stored.mod_revision, revision)) {
        return storage_failure(r, info.name, e);
      }
      meta["resourceVersion"] = std::to_string(revision);
    } else {
      meta["resourceVersion"] = std::to_string(stored.mod_revision);
    }
    if (is_namespace && namespace_terminating_) {
      namespace_terminating_(info.name);
    }
    return json_response(200, current);
  }
  if (auto e = storage_.remove(key, stored.mod_revision, revision)) {
    return storage_failure(r, info.name, e);
  }
  if (is_service(r)) {
    service_ips_->release_service(current);  // its cluster IP and node ports are free again
  }
  meta["resourceVersion"] = std::to_string(stored.mod_revision);
  return deleted_response(r, current);
}

http::Response ResourceHandler::remove_collection(const Resource& r, const RequestInfo& info,
                                                  const http::Request& request) {
  http::Response failure;
  auto selection = parse_selection(r, request, failure);
  if (!selection) {
    return failure;
  }
  // Checked before anything is deleted; each delete below reads the same options.
  if (!decode_delete_options(request, *field_validator_, failure)) {
    return failure;
  }
  storage::ListResult result;
  if (auto e = storage_.list(list_prefix(r, info.namespace_), "", 0, 0, result)) {
    return storage_failure(r, "", e);
  }
  json items = json::array();
  for (const auto& item : result.items) {
    json object = served_object(item);
    if (!selection->empty() && !selection->matches(object)) {
      continue;
    }
    RequestInfo one = info;
    one.name = string_at(object, {"metadata", "name"});
    one.namespace_ = string_at(object, {"metadata", "namespace"});
    http::Response deleted = remove(r, one, request);
    if (deleted.status == 200) {
      // Upstream answers with the objects as listed before they were deleted.
      object.erase("apiVersion");
      object.erase("kind");
      items.push_back(std::move(object));
    }
  }
  return json_response(
      200, {{"kind", r.kind + "List"},
            {"apiVersion", r.group_version()},
            {"metadata", {{"resourceVersion", std::to_string(storage_.current_revision())}}},
            {"items", items}});
}

// PATCH -----------------------------------------------------------------------------------------

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
    return status_response(415, "UnsupportedMediaType",
                           "the body of the request was in an unknown format - accepted media "
                           "types include: application/json-patch+json, "
                           "application/merge-patch+json, application/apply-patch+yaml");
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
    std::string error;
    auto parsed = yaml_to_json(request.body, error);
    if (!parsed) {
      return bad_request(error);
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
    std::string error;
    auto parsed = parse_client_json(request.body, error);
    if (!parsed) {
      // Upstream's texts: a strict decode for Warn and Strict (the default is Warn), the JSON
      // patch library's for Ignore.
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
    if (r.custom) {
      custom_defaults(r, current);
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
      http::Response failure;
      auto found = check_custom_fields(r, request, patched, failure);
      if (!found) {
        return failure;
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
  return conflict(r, info.name);
}

// The scale subresource: GET shows the Scale; PUT sets the replicas from one.
http::Response ResourceHandler::scale(const Resource& r, const RequestInfo& info,
                                      const http::Request& request) {
  storage::Object stored;
  if (auto e = storage_.get(r.storage_key(info.namespace_, info.name), stored)) {
    return storage_failure(r, info.name, e);
  }
  json current = served_object(stored);
  if (info.verb == "get") {
    return json_response(200, scale_of(r, current));
  }
  // The body is an autoscaling/v1 Scale, decoded and typed as any other kind.
  Resource scale_kind;
  scale_kind.group = "autoscaling";
  scale_kind.version = "v1";
  scale_kind.kind = "Scale";
  http::Response failure;
  auto decoded = decode_object_body(request, scale_kind, *field_validator_, failure);
  if (!decoded) {
    return failure;
  }
  if (!check_fields(*field_validator_, scale_kind, request, *decoded, failure)) {
    return failure;
  }
  const json& body = *decoded;
  std::string name = string_at(body, {"metadata", "name"});
  if (name != info.name) {
    return bad_request("the name of the object (" + name +
                       ") does not match the name on the URL (" + info.name + ")");
  }
  http::Response response =
      update_object(r, info, request, with_scale(r, current, body), stored, {}, false);
  if (response.status == 200) {
    json updated = json::parse(response.body, nullptr, false);
    if (updated.is_object()) {
      response.body = scale_of(r, updated).dump();
    }
  }
  return response;
}

}  // namespace apiserver::endpoints
