#include "endpoints/scale_subresource.h"

#include <algorithm>

#include "endpoints/body_decode.h"
#include "endpoints/field_checks.h"
#include "endpoints/object_answers.h"
#include "endpoints/patch/field_manager.h"
#include "endpoints/resources.h"
#include "endpoints/status.h"
#include "registry/custom_resources.h"
#include "registry/json_access.h"
#include "registry/selectors.h"

namespace apiserver::endpoints {

using nlohmann::json;
using registry::integer_at;
using registry::Resource;
using registry::string_at;

namespace {

// A CRD's scale paths (".spec.replicas") as JSON pointers ("/spec/replicas").
json::json_pointer scale_pointer(const std::string& path) {
  std::string pointer = path;
  std::replace(pointer.begin(), pointer.end(), '.', '/');
  return json::json_pointer(pointer.empty() || pointer.front() != '/' ? "/" + pointer : pointer);
}

const patch::FieldPath& replicas_path() {
  static const patch::FieldPath path = {patch::field_element("spec"),
                                        patch::field_element("replicas")};
  return path;
}

std::optional<patch::FieldSet> fields_of(const json& entry) {
  if (!entry.is_object() || !entry.contains("fieldsV1")) {
    return std::nullopt;
  }
  auto set = patch::FieldSet::from_fields_v1(entry["fieldsV1"]);
  return set ? std::optional(std::move(*set)) : std::nullopt;
}

}  // namespace

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
      if (auto parsed = registry::LabelSelector::from_json(selector)) {
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
  auto decoded = decode_checked_body(request, scale_kind, *field_validator_);
  if (!decoded) {
    return decoded.error().response();
  }
  const json& body = decoded->object;
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
