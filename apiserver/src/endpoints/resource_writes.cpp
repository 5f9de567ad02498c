// The resource handler's writes: create, update, delete and deletecollection, decoded here and
// carried out by the generic store (registry/generic/store.h).
#include "endpoints/resources.h"

#include <nlohmann/json.hpp>

#include "authorization/escalation.h"
#include "endpoints/accept.h"
#include "endpoints/admission_request.h"
#include "endpoints/body_decode.h"
#include "endpoints/collection.h"
#include "endpoints/continue_token.h"
#include "endpoints/delete_options.h"
#include "endpoints/field_checks.h"
#include "endpoints/object_answers.h"
#include "endpoints/query_params.h"
#include "endpoints/served_json.h"
#include "endpoints/status.h"
#include "endpoints/watch_stream.h"
#include "endpoints/write_options.h"
#include "errors/status.h"
#include "registry/crd_schema.h"
#include "registry/custom_resources.h"
#include "registry/generic/resource_errors.h"
#include "registry/generic/write_steps.h"
#include "registry/json_access.h"
#include "registry/objects.h"
#include "registry/served_form.h"
#include "registry/table.h"

namespace apiserver::endpoints {

using nlohmann::json;
using registry::Resource;
using registry::string_at;

namespace {

// A write of a kind stored in another form (registry/served_form.h) records field ownership
// on the form the request was in.
registry::Ownership served_ownership(const Resource& r, registry::Ownership own) {
  if (!own || !registry::stored_in_other_form(r)) {
    return own;
  }
  // The conversions here were just made on the same objects by the request itself; should one
  // fail now (a conversion webhook gone in between), field ownership is recorded on the form at
  // hand rather than failing the write.
  return [&r, own = std::move(own)](const json* live, const json& object) {
    json served_live;
    if (live != nullptr) {
      served_live = *live;
      (void)registry::to_served_form(r, served_live);
    }
    json served = object;
    (void)registry::to_served_form(r, served);
    json owned = own(live != nullptr ? &served_live : nullptr, served);
    (void)registry::to_stored_form(r, owned);
    return owned;
  };
}

// What a write stored, in the form `r` serves it.
errors::Result<registry::Written> as_served(const Resource& r,
                                            errors::Result<registry::Written> written) {
  if (written && registry::stored_in_other_form(r)) {
    if (written->object) {
      if (auto error = registry::to_served_form(r, *written->object)) {
        return *error;
      }
    } else {
      auto text = registry::served_text(r, written->stored);
      if (!text) {
        return text.error();
      }
      if (*text) {
        written->stored = std::move(**text);
      }
    }
  }
  return written;
}

// A write's object in the storage version's form. A custom resource naming another kind or
// version than the request's is refused first, as its validation would.
std::optional<errors::Status> body_to_stored_form(const Resource& r, json& object) {
  if (r.custom && registry::stored_in_other_form(r)) {
    if (auto refused = registry::custom_type_meta_refusal(r, object)) {
      return refused;
    }
  }
  return registry::to_stored_form(r, object);
}

// The object a write replaces, in the storage version's form (it may have been stored at
// another version, before a CRD's storage version changed).
errors::Result<storage::Object> current_in_stored_form(const Resource& r,
                                                       const storage::Object& stored) {
  storage::Object current = stored;
  if (!registry::stored_in_other_form(r) || registry::storage_row(r).custom == nullptr) {
    return current;
  }
  json object = json::parse(stored.value, nullptr, false);
  if (!object.is_object() ||
      object.value("apiVersion", std::string()) == registry::storage_row(r).group_version()) {
    return current;
  }
  if (auto error = registry::to_stored_form(r, object)) {
    return *error;
  }
  current.value = object.dump();
  return current;
}

// RBAC's escalation prevention for writes of roles and bindings (authorization/escalation.h),
// as the generic store's admission of the write; empty for other resources.
registry::Admission escalation_check(const authorization::Authorizer& authorizer,
                                     authorization::PolicyCache& policy, const Resource& r,
                                     const RequestInfo& info, const http::Request& request) {
  if (!authorization::guards_escalation(r.group, r.resource)) {
    return {};
  }
  return [&authorizer, &policy, &r, &info, &request](const json* old, const json& object) {
    return authorization::check_escalation(authorizer, policy, {request.user, request.groups},
                                           r.resource, info.namespace_, info.name, old, object);
  };
}

// A CertificateSigningRequest names who asked for it: the requester's name, uid, groups and
// extra replace whatever the body said (upstream's strategy PrepareForCreate).
void stamp_requester(const Resource& r, const http::Request& request, json& object) {
  if (r.group != "certificates.k8s.io" || r.kind != "CertificateSigningRequest" ||
      !object.is_object()) {
    return;
  }
  json& spec = object["spec"];
  if (!spec.is_object()) {
    return;  // validation answers
  }
  for (const char* cleared : {"username", "uid", "groups", "extra"}) {
    spec.erase(cleared);
  }
  if (!request.user.empty()) {
    spec["username"] = request.user;
  }
  if (!request.uid.empty()) {
    spec["uid"] = request.uid;
  }
  if (!request.groups.empty()) {
    spec["groups"] = request.groups;
  }
  if (!request.extra.empty()) {
    spec["extra"] = request.extra;
  }
}

}  // namespace

http::Response ResourceHandler::create(const Resource& r, const RequestInfo& info,
                                       const http::Request& request, const registry::Snapshot&) {
  if (r.custom && r.custom->terminating) {
    return status_with_details(405, "MethodNotAllowed",
                               "create not allowed while custom resource definition is terminating",
                               {{"group", r.group}, {"kind", r.resource}});
  }
  auto body = decode_checked_body(request, r, *field_validator_);
  if (!body) {
    return body.error().response();
  }
  return create_object(r, info, request, std::move(body->object), body->warnings, false);
}

http::Response ResourceHandler::create_object(const Resource& r, const RequestInfo& info,
                                              const http::Request& request, json object,
                                              const std::vector<std::string>& warnings,
                                              bool owned) {
  auto options = write_options(r, info, request, "CreateOptions", owned, true, clock_);
  if (!options) {
    return options.error().response();
  }
  if (auto error = body_to_stored_form(r, object)) {
    return error->response();
  }
  stamp_requester(r, request, object);
  // A patch that creates (apply) is admitted with CreateOptions, one that updates with
  // UpdateOptions, as upstream's patcher converts them.
  AdmissionRequest admission(admission_, r, info, request, admission::Operation::Create,
                             "CreateOptions", options->dry_run);
  auto written =
      as_served(r, store_->create(registry::storage_row(r),
                                  {info.namespace_, std::move(object), options->dry_run,
                                   served_ownership(r, std::move(options->own)),
                                   escalation_check(authorizer_, policy_, r, info, request),
                                   admission.passes()}));
  return written_response(201, written, with_admission_warnings(warnings, admission));
}

http::Response ResourceHandler::update(const Resource& r, const RequestInfo& info,
                                       const http::Request& request) {
  auto body = decode_checked_body(request, r, *field_validator_);
  if (!body) {
    return body.error().response();
  }
  storage::Object stored;
  if (auto e = storage_.get(r.storage_key(info.namespace_, info.name), stored)) {
    return storage_failure(r, info.name, e);
  }
  return update_object(r, info, request, std::move(body->object), stored, body->warnings, false);
}

http::Response ResourceHandler::update_object(const Resource& r, const RequestInfo& info,
                                              const http::Request& request, json object,
                                              const storage::Object& stored,
                                              const std::vector<std::string>& warnings, bool owned,
                                              bool* raced) {
  const bool patching = info.verb == "patch";
  auto options = write_options(r, info, request, patching ? "PatchOptions" : "UpdateOptions", owned,
                               !patching, clock_);
  if (!options) {
    return options.error().response();
  }
  if (auto error = body_to_stored_form(r, object)) {
    return error->response();
  }
  auto current = current_in_stored_form(r, stored);
  if (!current) {
    return current.error().response();
  }
  AdmissionRequest admission(admission_, r, info, request, admission::Operation::Update,
                             "UpdateOptions", options->dry_run);
  auto written = as_served(
      r, store_->update(registry::storage_row(r),
                        {.namespace_ = info.namespace_,
                         .name = info.name,
                         .subresource = info.subresource,
                         .object = std::move(object),
                         .current = &*current,
                         .dry_run = options->dry_run,
                         .own = served_ownership(r, std::move(options->own)),
                         .raced = raced,
                         .admit = escalation_check(authorizer_, policy_, r, info, request),
                         .admission = admission.passes()}));
  return written_response(200, written, with_admission_warnings(warnings, admission));
}

http::Response ResourceHandler::remove(const Resource& r, const RequestInfo& info,
                                       const http::Request& request) {
  auto options = decode_delete_options(request, *field_validator_);
  if (!options) {
    return options.error().response();
  }
  AdmissionRequest admission(admission_, r, info, request, admission::Operation::Delete,
                             "DeleteOptions", !options->dry_run.empty());
  if (auto refused = admission.admit_delete()) {
    return refused->response();
  }
  auto deleted =
      store_->remove(registry::storage_row(r),
                     {.namespace_ = info.namespace_,
                      .name = info.name,
                      .dry_run = !options->dry_run.empty(),
                      .precondition_uid = options->precondition_uid,
                      .precondition_resource_version = options->precondition_resource_version,
                      .grace_period_seconds = options->grace_period_seconds,
                      .orphan_dependents = options->orphan_dependents,
                      .propagation_policy = options->propagation_policy,
                      .admission = admission.passes()});
  http::Response response;
  if (deleted) {
    if (auto error = registry::to_served_form(r, deleted->object)) {
      return error->response();
    }
  }
  if (!deleted) {
    response = deleted.error().response();
  } else if (deleted->removed) {
    response = deleted_response(r, deleted->object);
  } else {
    // Upstream answers 202 for an object left for the garbage collector only when the client
    // asked for cascading deletion the old way (orphanDependents=false).
    const bool accepted = options->orphan_dependents == false;
    response = json_response(accepted ? 202 : 200, deleted->object);
  }
  add_warnings(response, with_admission_warnings(default_policy_warnings(r, *options), admission));
  return response;
}

http::Response ResourceHandler::remove_collection(const Resource& r, const RequestInfo& info,
                                                  const http::Request& request) {
  auto selection = parse_selection(r, request);
  if (!selection) {
    return selection.error().response();
  }
  // Checked before anything is deleted; each delete below reads the same options.
  auto options = decode_delete_options(request, *field_validator_);
  if (!options) {
    return options.error().response();
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
    if (deleted.status == 200 || deleted.status == 202) {
      // Upstream answers with the objects as listed before they were deleted.
      if (auto error = registry::to_served_form(r, object)) {
        return error->response();
      }
      object.erase("apiVersion");
      object.erase("kind");
      items.push_back(std::move(object));
    }
  }
  http::Response response = json_response(
      200, {{"kind", r.kind + "List"},
            {"apiVersion", r.group_version()},
            {"metadata", {{"resourceVersion", std::to_string(storage_.current_revision())}}},
            {"items", items}});
  add_warnings(response, default_policy_warnings(r, *options));
  return response;
}

}  // namespace apiserver::endpoints
