// AdmissionReview: what a webhook is sent, and what kube-apiserver accepts back
// (k8s.io/apiserver/pkg/admission/plugin/webhook/request). Pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admission/attributes.h"
#include "admission/webhook/matching.h"
#include "common/result.h"

namespace apiserver::admission::webhook {

// The AdmissionReview version to send: the first of `accepted` kube-apiserver knows
// ("v1", "v1beta1"); the error is upstream's when there is none.
common::Result<std::string> review_version(const std::vector<std::string>& accepted);

// The AdmissionReview of `version` ("v1" or "v1beta1") for the request `a`, the webhook told the
// resource is `invocation`, with request.uid `uid`; fields in Go's order.
nlohmann::ordered_json build_review(const Attributes& a, const Invocation& invocation,
                                    const std::string& version, const std::string& uid);

// A webhook's answer, checked.
struct Answer {
  bool allowed = false;
  nlohmann::json result;  // response.status (a metav1.Status), or null
  nlohmann::json patch;   // the decoded JSON patch (an array), or null
  std::vector<std::string> warnings;
  std::vector<std::pair<std::string, std::string>> audit_annotations;
};

// The failure of a call, in two parts as upstream's ErrCallingWebhook: the reason text
// (`failed to call webhook: ...`, `received invalid webhook response: ...`) and the code its
// metrics record.
struct CallError {
  std::string reason;
  int code = 503;
};

// Reads the HTTP answer `status`/`body` to the review with `uid` of `version`. `mutating`:
// whether patches are allowed.
common::Result<Answer, CallError> read_answer(int status, const std::string& body,
                                              const std::string& uid, const std::string& version,
                                              bool mutating);

// The refusal of the request by webhook `name` answering `result` (upstream's ToStatusErr): the
// webhook's Status, its code 400 at least, its message `admission webhook "x" denied the
// request: <message>` (or `: <reason>`, or ` without explanation`), reason and details as given.
errors::Status denial(const std::string& name, const nlohmann::json& result);

}  // namespace apiserver::admission::webhook
