#include "endpoints/write_options.h"

#include "endpoints/status.h"
#include "registry/custom_resources.h"
#include "registry/generic/write_steps.h"
#include "registry/objects.h"
#include "registry/schema_index.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;
using registry::Resource;

// Fields a write through this endpoint never owns: status through the main resource when the
// kind has a status subresource, spec through /status.
patch::FieldSet reset_fields(const Resource& r, const std::string& subresource) {
  patch::FieldSet set;
  if (subresource == "status") {
    set.insert({patch::field_element("spec")});
  } else if (subresource.empty() && registry::has_status_subresource(r)) {
    set.insert({patch::field_element("status")});
  }
  return set;
}

}  // namespace

std::string field_manager(const http::Request& request) {
  std::string manager = request.query_value("fieldManager");
  return manager.empty() ? patch::default_field_manager(request.header("User-Agent")) : manager;
}

std::optional<patch::ObjectType> object_type_of(const Resource& r) {
  if (r.custom) {
    if (r.custom->typed_root.is_null()) {
      return std::nullopt;
    }
    return patch::ObjectType(registry::SchemaIndex::builtin(), &r.custom->typed_root);
  }
  return patch::ObjectType::builtin(r.group, r.version, r.kind);
}

patch::Writer writer_of(const Resource& r, const RequestInfo& info, const http::Request& request,
                        std::chrono::system_clock::time_point now) {
  return {field_manager(request), r.group_version(), info.subresource, registry::rfc3339(now),
          reset_fields(r, info.subresource)};
}

namespace {

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

}  // namespace

errors::Result<WriteOptions> write_options(const Resource& r, const RequestInfo& info,
                                           const http::Request& request,
                                           const std::string& options_kind, bool owned,
                                           bool check_manager, const common::Clock& clock) {
  WriteOptions options;
  if (auto it = request.query.find("dryRun"); it != request.query.end()) {
    for (const auto& value : it->second) {
      if (value != "All") {
        return errors::failure(422, "Invalid",
                               options_kind +
                                   ".meta.k8s.io \"\" is invalid: dryRun: Unsupported value: "
                                   "[]string{\"" +
                                   value + "\"}: supported values: \"All\"",
                               errors::Details{});
      }
    }
    options.dry_run = !it->second.empty();
  }
  if (owned) {
    return options;
  }
  if (check_manager) {
    if (auto invalid = patch::validate_field_manager(
            options_kind, request.query_value("fieldManager"), false, false)) {
      return errors::Status::from_json(*invalid);
    }
  }
  options.own = [&r, &info, &request, &clock](const json* live, const json& object) {
    return with_ownership(r, info, request, live, object, clock.system_now());
  };
  return options;
}

}  // namespace apiserver::endpoints
