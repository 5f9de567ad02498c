// Auditing as kube-apiserver's audit filters do it: one Auditor for the server (the policy of
// --audit-policy-file and the log of --audit-log-path), one RequestAudit per request.
//
// A request's life in the log:
//   RequestAudit made as the request comes in (the audit ID: the client's Audit-ID header or a
//   new UUID) -> begin() once the user is known (the pipeline's audit stage): the policy picks
//   the level, RequestReceived is written -> annotations (the authorization stage's decision
//   and reason) -> finish() with the response: ResponseStarted first for long-running requests,
//   then ResponseComplete (for a watch, when its stream ends); Panic instead when the handler
//   threw. A request refused by authentication gets one ResponseStarted event, as upstream's
//   failed-authentication audit writes it.
//
// Deeper layers reach the request's audit through the thread's current one (Scope), as they do
// the trace: annotate() and log_impersonated_user() do nothing on a thread that serves no
// audited request.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "apiserver/http.h"
#include "audit/event.h"
#include "audit/log_writer.h"
#include "audit/policy.h"

namespace apiserver::audit {

class Auditor {
 public:
  Auditor(Policy policy, std::unique_ptr<LogWriter> writer);
  const Policy& policy() const { return policy_; }
  // Renders `event` and queues its line.
  void write(const Event& event);
  // Waits until every event written so far is in the log (tests, shutdown).
  void flush();

 private:
  const Policy policy_;
  std::unique_ptr<LogWriter> writer_;
};

class RequestAudit {
 public:
  // `auditor` may be null (no audit): the request still gets an audit ID. `request` must
  // outlive this object.
  RequestAudit(std::shared_ptr<Auditor> auditor, const http::Request& request,
               std::chrono::system_clock::time_point received);

  const std::string& id() const { return event_.audit_id; }
  bool enabled() const { return auditor_ != nullptr; }

  // The user is known: evaluates the policy for `attributes` and writes RequestReceived
  // (unless omitted). Returns the level. Once only; later calls return the level chosen.
  Level begin(const Attributes& attributes, const UserInfo& user);
  void annotate(const std::string& key, const std::string& value);
  // The user the request acts as (impersonation); the policy was evaluated for the original.
  void impersonated(const UserInfo& user);
  // The handler threw: writes Panic (the response is the barrier's 500).
  void panicked(const std::string& what);
  // The response: sets its Audit-Id header and writes the remaining stages. `attributes` serve
  // a request that authentication refused (401), for which begin() never ran.
  void finish(http::Response& response, const Attributes& attributes, bool long_running);

 private:
  // Evaluates the policy and fills the event's request fields; the level.
  Level open(const Attributes& attributes, const UserInfo& user);
  void emit(Stage stage);
  void record_request_object();
  void record_response(const http::Response& response);

  std::shared_ptr<Auditor> auditor_;
  const http::Request& request_;
  Event event_;
  RequestConfig config_;
  bool begun_ = false;
  bool done_ = false;
};

// Makes `audit` the current thread's request audit until destroyed.
class Scope {
 public:
  explicit Scope(RequestAudit& audit);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  RequestAudit* previous_;
};

// The current thread's request audit, or null.
RequestAudit* current();
// audit.AddAuditAnnotation: on the current request's event (all stages after this call).
void annotate(const std::string& key, const std::string& value);
// Hook for the impersonation filter: the event's impersonatedUser.
void log_impersonated_user(const UserInfo& user);

// upstream's audit annotations of the authorization filter.
inline constexpr const char* kDecisionAnnotation = "authorization.k8s.io/decision";
inline constexpr const char* kReasonAnnotation = "authorization.k8s.io/reason";

}  // namespace apiserver::audit
