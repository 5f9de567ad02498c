// serviceaccounts/token: TokenRequest, as kube-apiserver's TokenREST (with the v1.32 feature
// gates ServiceAccountTokenJTI, ServiceAccountTokenPodNodeInfo and ServiceAccountTokenNodeBinding
// on, as they are by default). The request names the service account in its path; the answer
// echoes the TokenRequest with the audiences and expiration it got and the signed token.
#include "authorization/node_authorizer.h"
#include "endpoints/admission_request.h"
#include "endpoints/field_checks.h"
#include "endpoints/object_answers.h"
#include "endpoints/resources.h"
#include "endpoints/status.h"
#include "endpoints/write_options.h"
#include "registry/field_validation.h"
#include "registry/generic/resource_errors.h"
#include "registry/json_access.h"
#include "registry/objects.h"
#include "serviceaccount/claims.h"
#include "serviceaccount/service_account_tokens.h"

namespace apiserver::endpoints {

using nlohmann::json;
using registry::Resource;
using registry::string_at;

namespace {

namespace sa = serviceaccount;

constexpr int64_t kMinExpirationSeconds = 10 * 60;
constexpr int64_t kMaxExpirationSeconds = int64_t{1} << 32;
constexpr int64_t kDefaultExpirationSeconds = 60 * 60;

struct Looked {
  std::optional<json> object;
  std::optional<http::Response> failure;
};

// An object a TokenRequest names, read as the registry's getter reads it: a bad name is a 400, a
// missing object the resource's 404.
Looked look_up(storage::Storage& storage, const registry::Snapshot& snapshot,
               const std::string& resource, const std::string& ns, const std::string& name) {
  const Resource* r = snapshot.find("", "v1", resource);
  if (r == nullptr) {
    return {std::nullopt, errors::no_route().response()};
  }
  if (name.empty()) {
    return {std::nullopt, errors::bad_request("Name parameter required.").response()};
  }
  if (auto problems = registry::name_problems(name, registry::NameRule::PathSegment, false);
      !problems.empty()) {
    return {std::nullopt,
            errors::bad_request("Name parameter invalid: " + registry::go_quote(name) + ": " +
                                registry::join(problems, ";"))
                .response()};
  }
  storage::Object stored;
  if (auto error = storage.get(r->storage_key(ns, name), stored)) {
    return {std::nullopt, storage_failure(*r, name, error)};
  }
  json object = json::parse(stored.value, nullptr, false);
  if (!object.is_object()) {
    return {std::nullopt,
            errors::internal_error("stored " + resource + " does not decode").response()};
  }
  return {std::move(object), std::nullopt};
}

// The group and version of an apiVersion ("v1", "apps/v1", "").
std::pair<std::string, std::string> split_api_version(const std::string& api_version) {
  const size_t slash = api_version.find('/');
  if (slash == std::string::npos) {
    return {"", api_version};
  }
  return {api_version.substr(0, slash), api_version.substr(slash + 1)};
}

json ref_echo(const json& ref) {
  nlohmann::ordered_json out;
  for (const char* key : {"kind", "apiVersion", "name", "uid"}) {
    const std::string value = string_at(ref, {key});
    if (!value.empty()) {
      out[key] = value;
    }
  }
  return json(out);
}

// The NodeRestriction admission plugin on a node's TokenRequest: a node asks only for tokens
// bound, by uid, to a pod scheduled on it. Refusals name the service account.
std::optional<http::Response> node_restriction(const http::Request& request, const json& spec,
                                               storage::Storage& storage,
                                               const registry::Snapshot& snapshot,
                                               const std::string& ns, const std::string& account) {
  std::string node;
  if (!authorization::node_identity({request.user, request.groups}, node)) {
    return std::nullopt;
  }
  auto forbidden = [&](const std::string& why) {
    return errors::failure(
               403, "Forbidden",
               "serviceaccounts " + registry::go_quote(account) + " is forbidden: " + why,
               errors::object_details(account, "", "serviceaccounts"))
        .response();
  };
  const json* ref = registry::find_path(spec, {"boundObjectRef"});
  if (ref == nullptr || !ref->is_object() || string_at(*ref, {"apiVersion"}) != "v1" ||
      string_at(*ref, {"kind"}) != "Pod" || string_at(*ref, {"name"}).empty()) {
    return forbidden("node requested token not bound to a pod");
  }
  const std::string uid = string_at(*ref, {"uid"});
  if (uid.empty()) {
    return forbidden("node requested token with a pod binding without a uid");
  }
  auto pod = look_up(storage, snapshot, "pods", ns, string_at(*ref, {"name"}));
  if (pod.failure) {
    return std::move(pod.failure);
  }
  if (string_at(*pod.object, {"metadata", "uid"}) != uid) {
    return forbidden("the UID in the bound object reference (" + uid +
                     ") does not match the UID in record. The object might have been deleted "
                     "and then recreated");
  }
  if (string_at(*pod.object, {"spec", "nodeName"}) != node) {
    return forbidden("node requested token bound to a pod scheduled on a different node");
  }
  return std::nullopt;
}

}  // namespace

http::Response ResourceHandler::request_token(const Resource& r, const RequestInfo& info,
                                              const http::Request& request,
                                              const registry::Snapshot& snapshot) {
  Resource token_request;
  token_request.group = "authentication.k8s.io";
  token_request.version = "v1";
  token_request.kind = "TokenRequest";
  token_request.namespaced = true;
  auto decoded = decode_checked_body(request, token_request, *field_validator_);
  if (!decoded) {
    return decoded.error().response();
  }
  auto options = write_options(r, info, request, "CreateOptions", false, true, clock_);
  if (!options) {
    return options.error().response();
  }
  AdmissionRequest admission(admission_, r, info, request, admission::Operation::Create,
                             "CreateOptions", options->dry_run);
  if (auto refused = admission.admit_body(decoded->object)) {
    return refused->response();
  }
  const json& body = decoded->object;
  std::vector<std::string> warnings;
  const std::string body_ns = string_at(body, {"metadata", "namespace"});
  if (!body_ns.empty() && body_ns != info.namespace_) {
    return bad_request(
        "the namespace of the provided object does not match the namespace sent on the request");
  }
  const std::string body_name = string_at(body, {"metadata", "name"});
  if (!body_name.empty() && body_name != info.name) {
    return registry::invalid(token_request.group, token_request.kind, info.name,
                             {registry::invalid_value("metadata.name", body_name,
                                                      "must match the service account name if "
                                                      "specified")})
        .response();
  }
  auto account = look_up(storage_, snapshot, "serviceaccounts", info.namespace_, info.name);
  if (account.failure) {
    return std::move(*account.failure);
  }
  const json empty = json::object();
  const json* spec_found = registry::find_path(body, {"spec"});
  const json& spec = spec_found != nullptr && spec_found->is_object() ? *spec_found : empty;
  std::vector<std::string> audiences;
  if (const json* listed = registry::find_path(spec, {"audiences"}); listed && listed->is_array()) {
    for (const json& audience : *listed) {
      if (audience.is_string()) {
        audiences.push_back(audience.get<std::string>());
      }
    }
  }
  if (audiences.empty()) {
    audiences = service_accounts_->api_audiences();
  }
  int64_t expiration =
      registry::integer_at(spec, {"expirationSeconds"}).value_or(kDefaultExpirationSeconds);
  const auto now = clock_.system_now();
  const int64_t now_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  if (expiration < kMinExpirationSeconds || expiration > kMaxExpirationSeconds) {
    return registry::invalid(token_request.group, token_request.kind, "",
                             {registry::invalid_rendered(
                                 "spec.expirationSeconds", std::to_string(expiration),
                                 expiration < kMinExpirationSeconds
                                     ? "may not specify a duration less than 10 minutes"
                                     : "may not specify a duration larger than 2^32 seconds")})
        .response();
  }
  if (auto refused =
          node_restriction(request, spec, storage_, snapshot, info.namespace_, info.name)) {
    return std::move(*refused);
  }
  sa::BoundTokenSpec token;
  token.namespace_ = info.namespace_;
  token.service_account = {info.name, string_at(*account.object, {"metadata", "uid"})};
  const json* ref = registry::find_path(spec, {"boundObjectRef"});
  if (ref != nullptr && ref->is_object()) {
    const auto [group, version] = split_api_version(string_at(*ref, {"apiVersion"}));
    const std::string kind = string_at(*ref, {"kind"});
    const std::string name = string_at(*ref, {"name"});
    std::string uid;
    if (group.empty() && kind == "Pod") {
      auto pod = look_up(storage_, snapshot, "pods", info.namespace_, name);
      if (pod.failure) {
        return std::move(*pod.failure);
      }
      if (string_at(*pod.object, {"spec", "serviceAccountName"}) != info.name) {
        return bad_request("cannot bind token for serviceaccount " + registry::go_quote(info.name) +
                           " to pod running with different serviceaccount name.");
      }
      uid = string_at(*pod.object, {"metadata", "uid"});
      token.pod = sa::ObjectRef{name, uid};
      // The node the pod runs on is named too; its uid when it can be found.
      const std::string node_name = string_at(*pod.object, {"spec", "nodeName"});
      if (!node_name.empty()) {
        auto node = look_up(storage_, snapshot, "nodes", "", node_name);
        if (node.object) {
          token.node = sa::ObjectRef{node_name, string_at(*node.object, {"metadata", "uid"})};
        } else if (node.failure && node.failure->status == 404) {
          token.node = sa::ObjectRef{node_name, ""};
        } else if (node.failure) {
          return std::move(*node.failure);
        }
      }
    } else if (group.empty() && kind == "Node") {
      auto node = look_up(storage_, snapshot, "nodes", "", name);
      if (node.failure) {
        return std::move(*node.failure);
      }
      uid = string_at(*node.object, {"metadata", "uid"});
      token.node = sa::ObjectRef{name, uid};
    } else if (group.empty() && kind == "Secret") {
      auto secret = look_up(storage_, snapshot, "secrets", info.namespace_, name);
      if (secret.failure) {
        return std::move(*secret.failure);
      }
      uid = string_at(*secret.object, {"metadata", "uid"});
      token.secret = sa::ObjectRef{name, uid};
    } else {
      return bad_request("cannot bind token to object of type " + group + "/" + version +
                         ", Kind=" + kind);
    }
    const std::string wanted_uid = string_at(*ref, {"uid"});
    if (!wanted_uid.empty() && wanted_uid != uid) {
      return errors::failure(409, "Conflict",
                             "Operation cannot be fulfilled on " +
                                 (group.empty() ? kind : kind + "." + group) + " " +
                                 registry::go_quote(name) +
                                 ": the UID in the bound object reference (" + wanted_uid +
                                 ") does not match the UID in record. The object might have "
                                 "been deleted and then recreated",
                             errors::object_details(name, group, kind))
          .response();
    }
  }
  const int64_t most = service_accounts_->max_expiration().count();
  if (most > 0 && expiration > most) {
    warnings.push_back("requested expiration of " + std::to_string(expiration) +
                       " seconds shortened to " + std::to_string(most) + " seconds");
    expiration = most;
  }
  // kube-apiserver's transition for kubelet tokens: a pod-bound token asked for 3607 s, for the
  // API audiences alone, lives a year and warns after the hour.
  token.expiration_seconds = expiration;
  const auto& api_audiences = service_accounts_->api_audiences();
  const bool kube_audiences =
      filters::intersect_audiences(api_audiences, audiences).size() == audiences.size();
  if (service_accounts_->extend_expiration() && token.pod &&
      expiration == sa::kWarnOnlyBoundTokenExpirationSeconds && kube_audiences) {
    token.warn_after_seconds = expiration;
    token.expiration_seconds = sa::kExpirationExtensionSeconds;
  }
  token.audiences = audiences;
  token.now = now_seconds;
  token.id = registry::new_uid();
  const std::string signed_token = service_accounts_->sign(sa::bound_claims(token));

  nlohmann::ordered_json metadata;
  metadata["name"] = info.name;
  metadata["namespace"] = info.namespace_;
  metadata["creationTimestamp"] = registry::rfc3339(now);
  if (const json* sent = registry::find_path(body, {"metadata"}); sent && sent->is_object()) {
    for (const auto& [key, value] : sent->items()) {
      if (key != "name" && key != "namespace" && key != "creationTimestamp") {
        metadata[key] = value;
      }
    }
  }
  nlohmann::ordered_json answer_spec;
  answer_spec["audiences"] = audiences;
  answer_spec["expirationSeconds"] = expiration;
  if (ref != nullptr && ref->is_object()) {
    answer_spec["boundObjectRef"] = ref_echo(*ref);
  }
  nlohmann::ordered_json answer;
  answer["kind"] = "TokenRequest";
  answer["apiVersion"] = "authentication.k8s.io/v1";
  answer["metadata"] = std::move(metadata);
  answer["spec"] = std::move(answer_spec);
  answer["status"] = {
      {"token", signed_token},
      {"expirationTimestamp",
       registry::rfc3339(std::chrono::system_clock::time_point(std::chrono::seconds(now_seconds)) +
                         std::chrono::seconds(expiration))}};
  http::Response response;
  response.status = 201;
  response.set_header("Content-Type", "application/json");
  response.body = answer.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  add_warnings(response, decoded->warnings);
  add_warnings(response, registry::warning_headers(warnings));
  add_warnings(response, with_admission_warnings({}, admission));
  return response;
}

}  // namespace apiserver::endpoints
