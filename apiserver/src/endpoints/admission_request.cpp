#include "endpoints/admission_request.h"

#include "endpoints/scale_subresource.h"
#include "registry/field_validation.h"
#include "registry/json_access.h"
#include "registry/served_form.h"
#include "trace/request_trace.h"

namespace apiserver::endpoints {

using nlohmann::json;

AdmissionRequest::AdmissionRequest(const admission::Chain* chain, const registry::Resource& r,
                                   const RequestInfo& info, const http::Request& request,
                                   admission::Operation operation, const std::string& options_kind,
                                   bool dry_run)
    : chain_(chain), resource_(&r) {
  attributes_.operation = operation;
  attributes_.resource = &r;
  attributes_.subresource = info.subresource;
  attributes_.kind_group = r.group;
  attributes_.kind_version = r.version;
  attributes_.kind = r.kind;
  if (info.subresource == "scale") {
    attributes_.kind_group = "autoscaling";
    attributes_.kind_version = "v1";
    attributes_.kind = "Scale";
  }
  attributes_.namespace_ = info.namespace_;
  attributes_.name = info.name;
  attributes_.dry_run = dry_run;
  attributes_.user = {request.user, request.uid, request.groups, request.extra};
  json options = {{"kind", options_kind}, {"apiVersion", "meta.k8s.io/v1"}};
  if (dry_run) {
    options["dryRun"] = json::array({"All"});
  }
  if (request.has_query("fieldManager") && options_kind != "DeleteOptions") {
    options["fieldManager"] = request.query_value("fieldManager");
  }
  attributes_.options = std::move(options);
}

void AdmissionRequest::publish_annotations() {
  for (; published_ < attributes_.audit_annotations.size(); ++published_) {
    const auto& [key, value] = attributes_.audit_annotations[published_];
    trace::annotate_audit(key, value);
  }
}

registry::AdmissionPasses AdmissionRequest::passes() {
  if (chain_ == nullptr) {
    return {};
  }
  registry::AdmissionPasses passes;
  passes.mutate = [this](const json* old, json& object) -> std::optional<errors::Status> {
    if (attributes_.operation == admission::Operation::Delete) {
      return std::nullopt;
    }
    if (attributes_.name.empty()) {
      attributes_.name = registry::string_at(object, {"metadata", "name"});
    }
    if (!viewed_otherwise()) {
      attributes_.object = &object;
      attributes_.old_object = old;
      auto decision = chain_->admit(attributes_);
      publish_annotations();
      return decision;
    }
    auto seen = as_seen(object);
    if (!seen) {
      return seen.error();
    }
    auto old_seen = old != nullptr ? as_seen(*old) : errors::Result<json>(json());
    if (!old_seen) {
      return old_seen.error();
    }
    attributes_.object = &*seen;
    attributes_.old_object = old != nullptr ? &*old_seen : nullptr;
    auto decision = chain_->admit(attributes_);
    publish_annotations();
    if (!decision) {
      return take_back(object, std::move(*seen));
    }
    return decision;
  };
  passes.validate = [this](const json* old, const json& object) -> std::optional<errors::Status> {
    // The validating pass may not change the object: it sees a copy.
    auto seen = as_seen(object);
    if (!seen) {
      return seen.error();
    }
    auto old_seen =
        old != nullptr && viewed_otherwise() ? as_seen(*old) : errors::Result<json>(json());
    if (!old_seen) {
      return old_seen.error();
    }
    const json* old_shown = old != nullptr && viewed_otherwise() ? &*old_seen : old;
    if (attributes_.operation == admission::Operation::Delete) {
      attributes_.object = nullptr;
      attributes_.old_object = &*seen;
    } else {
      attributes_.object = &*seen;
      attributes_.old_object = old_shown;
      attributes_.name = registry::string_at(object, {"metadata", "name"});
    }
    auto decision = chain_->validate(attributes_);
    publish_annotations();
    return decision;
  };
  return passes;
}

bool AdmissionRequest::viewed_otherwise() const {
  return attributes_.subresource == "scale" || registry::stored_in_other_form(*resource_);
}

errors::Result<json> AdmissionRequest::as_seen(const json& object) const {
  if (attributes_.subresource == "scale") {
    return scale_of(*resource_, object);
  }
  json seen = object;
  // Nothing happens for a kind stored as it is served.
  if (auto error = registry::to_served_form(*resource_, seen)) {
    return *error;
  }
  return seen;
}

std::optional<errors::Status> AdmissionRequest::take_back(json& object, json seen) const {
  if (attributes_.subresource == "scale") {
    object = with_scale(*resource_, object, seen);  // the Scale's replicas go into the workload
    return std::nullopt;
  }
  if (auto error = registry::to_stored_form(*resource_, seen)) {
    return error;
  }
  object = std::move(seen);
  return std::nullopt;
}

admission::Decision AdmissionRequest::admit_body(json& body) {
  if (chain_ == nullptr) {
    return std::nullopt;
  }
  attributes_.object = &body;
  attributes_.old_object = nullptr;
  const std::string api_version = registry::string_at(body, {"apiVersion"});
  const size_t slash = api_version.find('/');
  attributes_.kind_group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  attributes_.kind_version =
      slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  attributes_.kind = registry::string_at(body, {"kind"});
  auto decision = chain_->admit(attributes_);
  if (!decision) {
    decision = chain_->validate(attributes_);
  }
  publish_annotations();
  return decision;
}

admission::Decision AdmissionRequest::admit_delete() {
  if (chain_ == nullptr) {
    return std::nullopt;
  }
  attributes_.object = nullptr;
  attributes_.old_object = nullptr;
  auto decision = chain_->admit(attributes_);
  publish_annotations();
  return decision;
}

std::vector<std::string> with_admission_warnings(std::vector<std::string> warnings,
                                                 const AdmissionRequest& admission) {
  auto headers = registry::warning_headers(admission.warnings());
  warnings.insert(warnings.end(), headers.begin(), headers.end());
  return warnings;
}

}  // namespace apiserver::endpoints
