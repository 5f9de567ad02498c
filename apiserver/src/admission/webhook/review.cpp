#include "admission/webhook/review.h"

#include <algorithm>

#include "common/base64.h"
#include "common/go_quote.h"
#include "registry/validation_rules.h"
#include "registry/walk_depth.h"
#include "webhook/client.h"

namespace apiserver::admission::webhook {
namespace {

using nlohmann::json;

using registry::rules::get;
using registry::rules::str;

nlohmann::ordered_json user_info(const UserInfo& user) {
  nlohmann::ordered_json out = {{"username", user.name}};
  if (!user.uid.empty()) {
    out["uid"] = user.uid;
  }
  if (!user.groups.empty()) {
    out["groups"] = user.groups;
  }
  if (!user.extra.empty()) {
    out["extra"] = user.extra;
  }
  return out;
}

CallError call_failure(const std::string& why, int code = 503) {
  return {"failed to call webhook: " + why, code};
}

CallError invalid(const std::string& why) {
  return {"received invalid webhook response: " + why, 503};
}

}  // namespace

common::Result<std::string> review_version(const std::vector<std::string>& accepted) {
  for (const auto& v : accepted) {
    if (v == "v1" || v == "v1beta1") {
      return v;
    }
  }
  return common::Result<std::string>::failure(
      "webhook does not accept known AdmissionReview versions (v1, v1beta1)");
}

nlohmann::ordered_json build_review(const Attributes& a, const Invocation& invocation,
                                    const std::string& version, const std::string& uid) {
  const registry::Resource& r = *a.resource;
  nlohmann::ordered_json request = {
      {"uid", uid},
      {"kind",
       {{"group", invocation.kind_group},
        {"version", invocation.kind_version},
        {"kind", invocation.kind}}},
      {"resource",
       {{"group", invocation.group},
        {"version", invocation.version},
        {"resource", invocation.resource}}},
  };
  if (!a.subresource.empty()) {
    request["subResource"] = a.subresource;
  }
  std::string request_kind = r.kind;
  std::string kind_group = r.group;
  std::string kind_version = r.version;
  if (const auto* sub = r.subresource(a.subresource); sub != nullptr && !sub->kind.kind.empty()) {
    request_kind = sub->kind.kind;
    kind_group = sub->kind.group;
    kind_version = sub->kind.version;
  }
  request["requestKind"] = {
      {"group", kind_group}, {"version", kind_version}, {"kind", request_kind}};
  request["requestResource"] = {
      {"group", r.group}, {"version", r.version}, {"resource", r.resource}};
  if (!a.subresource.empty()) {
    request["requestSubResource"] = a.subresource;
  }
  if (!a.name.empty()) {
    request["name"] = a.name;
  }
  if (!a.namespace_.empty()) {
    request["namespace"] = a.namespace_;
  }
  request["operation"] = std::string(operation_name(a.operation));
  request["userInfo"] = user_info(a.user);
  request["object"] = a.object != nullptr ? *a.object : json();
  request["oldObject"] = a.old_object != nullptr ? *a.old_object : json();
  request["dryRun"] = a.dry_run;
  request["options"] = a.options.is_object() ? a.options : json();
  return nlohmann::ordered_json{{"kind", "AdmissionReview"},
                                {"apiVersion", "admission.k8s.io/" + version},
                                {"request", std::move(request)}};
}

common::Result<Answer, CallError> read_answer(int status, const std::string& body,
                                              const std::string& uid, const std::string& version,
                                              bool mutating) {
  const json doc = json::parse(body, nullptr, false);
  if (status < 200 || status > 299) {
    if (doc.is_object() && str(doc, "kind") == "Status" && !str(doc, "message").empty()) {
      const json& code = get(doc, "code");
      const int64_t given = code.is_number_integer() ? code.get<int64_t>() : status;
      return call_failure(str(doc, "message"),
                          static_cast<int>(std::clamp<int64_t>(given, 100, 599)));
    }
    return call_failure(apiserver::webhook::rest_client_error(status, body), status);
  }
  if (doc.is_discarded()) {
    return call_failure(std::string("couldn't get version/kind; json parse error: ") +
                        (body.empty() ? "unexpected end of JSON input" : "invalid JSON"));
  }
  const int limit = static_cast<int>(registry::kMaxNestingDepth);
  if (registry::json_depth(doc, limit) > limit) {
    // Go's decoder stops at this depth; so does what the answer could add to an object.
    return call_failure(
        "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth");
  }
  if (!doc.is_object()) {
    return call_failure("json: cannot unmarshal " +
                        std::string(doc.is_array() ? "array" : "value") +
                        " into Go value of type v1.AdmissionReview");
  }
  const std::string want = "admission.k8s.io/" + version + ", Kind=AdmissionReview";
  const std::string got = str(doc, "apiVersion") + ", Kind=" + str(doc, "kind");
  const json& response = get(doc, "response");
  if (!response.is_object()) {
    return invalid("webhook response was absent");
  }
  if (version == "v1") {
    if (str(response, "uid") != uid) {
      return invalid("expected response.uid=" + common::go_quote(uid) + ", got " +
                     common::go_quote(str(response, "uid")));
    }
    if (got != want) {
      return invalid("expected webhook response of " + want + ", got " + got);
    }
  }
  Answer answer;
  const json& allowed = get(response, "allowed");
  answer.allowed = allowed.is_boolean() && allowed.get<bool>();
  const json& result = get(response, "status");
  answer.result = result.is_object() ? result : json();
  const json& patch = get(response, "patch");
  const json& patch_type = get(response, "patchType");
  const bool has_patch = patch.is_string() && !patch.get<std::string>().empty();
  const bool has_type = patch_type.is_string() && !patch_type.get<std::string>().empty();
  if (version == "v1") {
    if (mutating) {
      if (has_patch && !has_type) {
        return invalid("webhook returned response.patch but not response.patchType");
      }
      if (has_type && !has_patch) {
        return invalid("webhook returned response.patchType but not response.patch");
      }
      if (has_type && patch_type.get<std::string>() != "JSONPatch") {
        return invalid("webhook returned invalid response.patchType of " +
                       common::go_quote(patch_type.get<std::string>()));
      }
    } else {
      if (has_patch) {
        return invalid("validating webhook may not return response.patch");
      }
      if (has_type) {
        return invalid("validating webhook may not return response.patchType");
      }
    }
  }
  if (has_patch && mutating && version != "v1" &&
      (!has_type || patch_type.get<std::string>() != "JSONPatch")) {
    return CallError{
        "unsupported patch type " + common::go_quote(has_type ? patch_type.get<std::string>() : ""),
        503};
  }
  if (has_patch && mutating) {
    auto decoded = common::go_base64_decode(patch.get<std::string>(), common::GoBase64::Std);
    if (!decoded.error.empty()) {
      return call_failure(decoded.error);
    }
    json parsed = json::parse(decoded.bytes, nullptr, false);
    bool operations = parsed.is_array();
    for (const auto& op : operations ? parsed : json::array()) {
      operations = operations && op.is_object();
    }
    if (!operations) {
      return CallError{
          "received undecodable patch in webhook response: json: cannot unmarshal "
          "value into Go value of type jsonpatch.Patch",
          503};
    }
    if (registry::json_depth(parsed, limit) > limit) {
      return CallError{
          "received undecodable patch in webhook response: invalid character '[' exceeded max "
          "depth",
          503};
    }
    answer.patch = std::move(parsed);
  }
  const json& warnings = get(response, "warnings");
  if (warnings.is_array()) {
    for (const auto& w : warnings) {
      if (w.is_string()) {
        answer.warnings.push_back(w.get<std::string>());
      }
    }
  }
  const json& annotations = get(response, "auditAnnotations");
  if (annotations.is_object()) {
    for (auto it = annotations.begin(); it != annotations.end(); ++it) {
      if (it.value().is_string()) {
        answer.audit_annotations.emplace_back(it.key(), it.value().get<std::string>());
      }
    }
  }
  return answer;
}

errors::Status denial(const std::string& name, const json& result) {
  // The webhook's own Status, its code made a 4xx at least and its message prefixed; its reason
  // and details pass as they are (ToStatusErr).
  errors::Status s;
  const json& code = get(result, "code");
  const int64_t given = code.is_number_integer() ? code.get<int64_t>() : 0;
  s.code = static_cast<int>(std::clamp<int64_t>(given, 400, 599));
  s.reason = str(result, "reason");
  const std::string message = str(result, "message");
  const std::string denied = "admission webhook " + common::go_quote(name) + " denied the request";
  if (!message.empty()) {
    s.message = denied + ": " + message;
  } else if (!s.reason.empty()) {
    s.message = denied + ": " + s.reason;
  } else {
    s.message = denied + " without explanation";
  }
  const json& details = get(result, "details");
  if (details.is_object()) {
    s.details = errors::Details::from_json(details);
  }
  return s;
}

}  // namespace apiserver::admission::webhook
