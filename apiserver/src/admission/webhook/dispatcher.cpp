#include "admission/webhook/dispatcher.h"

#include <chrono>
#include <memory>
#include <set>

#include "admission/webhook/review.h"
#include "common/go_quote.h"
#include "registry/objects.h"
#include "registry/served_form.h"
#include "webhook/client.h"
#include "webhook/resolve.h"

namespace apiserver::admission::webhook {
namespace {

using nlohmann::json;

// What one call came to, before the failure policy is applied.
struct Result {
  enum class Kind { Allowed, CallFailed, Rejected, Internal } kind = Kind::Allowed;
  std::string call_error;  // CallFailed: upstream's ErrCallingWebhook reason
  int code = 200;          // what the metrics record
  errors::Status status;   // Rejected and Internal: the request's answer
  bool changed = false;
  std::string said;    // Allowed: what it did, for the trace
  json applied_patch;  // the patch applied, for the audit annotation
};

Result call_failed(std::string reason, int code) {
  Result r;
  r.kind = Result::Kind::CallFailed;
  r.call_error = std::move(reason);
  r.code = code;
  return r;
}

Result internal(errors::Status status) {
  Result r;
  r.kind = Result::Kind::Internal;
  r.status = std::move(status);
  r.code = 0;
  return r;
}

// Compact JSON (the fields in the order Go's struct encodes them).
std::string compact(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

apiserver::webhook::Lookups lookups_of(const Services& services) {
  return {[&services](const std::string& group, const std::string& resource, const std::string& ns,
                      const std::string& name) { return services.get(group, resource, ns, name); },
          [&services](const std::string& group, const std::string& resource,
                      const std::string& ns) { return services.list(group, resource, ns); }};
}

// One call, with `a` as the webhook is shown it.
Result call_as_named(const Services& services, const Webhook& hook, const Invocation& invocation,
                     Attributes& a, bool mutating) {
  if (a.dry_run) {
    if (hook.side_effects.empty()) {
      return call_failed("Webhook SideEffects is nil", 400);
    }
    if (hook.side_effects != "None" && hook.side_effects != "NoneOnDryRun") {
      return internal(errors::bad_request("admission webhook " + common::go_quote(hook.name) +
                                          " does not support dry run"));
    }
  }
  auto version = review_version(hook.review_versions);
  if (!version) {
    return call_failed("could not create admission objects: " + version.error(), 400);
  }
  const std::string uid = registry::new_uid();
  auto target =
      apiserver::webhook::resolve(hook.client, hook.timeout_seconds, lookups_of(services));
  if (!target) {
    return call_failed("failed to call webhook: " + target.error(), 503);
  }
  const std::string body = build_review(a, invocation, *version, uid)
                               .dump(-1, ' ', false, json::error_handler_t::replace);
  auto response =
      apiserver::webhook::post_json(*target, body, std::chrono::seconds(hook.timeout_seconds));
  if (!response) {
    return call_failed("failed to call webhook: " + response.error(), 503);
  }
  auto answer = read_answer(response->status, response->body, uid, *version, mutating);
  if (!answer) {
    return call_failed(answer.error().reason, answer.error().code);
  }
  for (const auto& [key, value] : answer->audit_annotations) {
    a.audit_annotations.emplace_back(hook.name + "/" + key, value);
  }
  for (const auto& warning : answer->warnings) {
    a.warnings.push_back(warning);
  }
  Result r;
  if (!answer->allowed) {
    r.kind = Result::Kind::Rejected;
    r.status = denial(hook.name, answer->result);
    r.code = r.status.code;
    return r;
  }
  r.said = "allowed";
  if (answer->patch.is_array() && !answer->patch.empty()) {
    if (a.object == nullptr) {
      return internal(errors::internal_error(
          "admission webhook " + common::go_quote(hook.name) +
          " attempted to modify the object, which is not supported for this operation"));
    }
    if (!services.json_patch) {
      return internal(errors::internal_error("JSON patches cannot be applied"));
    }
    auto patched = services.json_patch(*a.object, answer->patch);
    if (!patched) {
      return internal(errors::internal_error(patched.error()));
    }
    if (!patched->is_object()) {
      return internal(errors::internal_error("the patched object is not a JSON object"));
    }
    r.changed = *patched != *a.object;
    if (r.changed) {
      *a.object = std::move(*patched);
      r.said += ", patched";
    }
    r.applied_patch = std::move(answer->patch);
  }
  return r;
}

// The resource a webhook's rule named when it is not the request's (an equivalent resource:
// events.k8s.io Events for a core/v1 Event request); null otherwise.
std::shared_ptr<const registry::Resource> named_resource(const Services& services,
                                                         const Attributes& a,
                                                         const Invocation& invocation) {
  if (invocation.group == a.resource->group && invocation.version == a.resource->version) {
    return nullptr;
  }
  auto snapshot = services.snapshot();
  const registry::Resource* row =
      snapshot->find(invocation.group, invocation.version, invocation.resource);
  return row != nullptr ? std::make_shared<const registry::Resource>(*row) : nullptr;
}

// `object` in the form `from` serves it, in the form `to` serves it (both from one storage).
errors::Result<json> converted(const json& object, const registry::Resource& from,
                               const registry::Resource& to) {
  json out = object;
  if (auto error = registry::to_stored_form(from, out)) {
    return *error;
  }
  if (auto error = registry::to_served_form(to, out)) {
    return *error;
  }
  return out;
}

// One call: the webhook sees the object as the resource its rule named serves it, and what it
// patches comes back in the request's form.
Result call_webhook(const Services& services, const Webhook& hook, const Invocation& invocation,
                    Attributes& request, bool mutating) {
  const auto named = named_resource(services, request, invocation);
  if (!named) {
    return call_as_named(services, hook, invocation, request, mutating);
  }
  Attributes shown = request;
  json object;
  json old_object;
  if (request.object != nullptr) {
    auto seen = converted(*request.object, *request.resource, *named);
    if (!seen) {
      return internal(seen.error());
    }
    object = std::move(*seen);
    shown.object = &object;
  }
  if (request.old_object != nullptr) {
    auto seen = converted(*request.old_object, *request.resource, *named);
    if (!seen) {
      return internal(seen.error());
    }
    old_object = std::move(*seen);
    shown.old_object = &old_object;
  }
  shown.warnings.clear();
  shown.audit_annotations.clear();
  Result result = call_as_named(services, hook, invocation, shown, mutating);
  request.warnings.insert(request.warnings.end(), shown.warnings.begin(), shown.warnings.end());
  request.audit_annotations.insert(request.audit_annotations.end(), shown.audit_annotations.begin(),
                                   shown.audit_annotations.end());
  if (result.changed && request.object != nullptr) {
    auto back = converted(object, *named, *request.resource);
    if (!back) {
      return internal(back.error());
    }
    *request.object = std::move(*back);
  }
  return result;
}

}  // namespace

Dispatcher::Dispatcher(const Services& services, bool mutating)
    : services_(services), mutating_(mutating), metrics_(WebhookMetrics::shared_for(services)) {}

Dispatcher::Outcome Dispatcher::call(const Webhook& hook, const Invocation& invocation,
                                     Attributes& a, std::string& note, int round) const {
  const std::string type = mutating_ ? "admit" : "validating";
  const std::string operation(operation_name(a.operation));
  const auto started = std::chrono::steady_clock::now();
  Result r = call_webhook(services_, hook, invocation, a, mutating_);
  WebhookMetrics::Call observed{hook.name, type,   operation,
                                false,     r.code, std::chrono::steady_clock::now() - started};
  metrics_->attach(services_);
  if (!note.empty()) {
    note += "; ";
  }
  note += "webhook " + common::go_quote(hook.name) + ": ";
  const std::string key_suffix =
      "round_" + std::to_string(round) + "_index_" + std::to_string(hook.index);
  if (mutating_) {
    // Upstream's record of every mutating call, and of the patch it applied.
    nlohmann::ordered_json mutation;
    mutation["configuration"] = hook.configuration;
    mutation["webhook"] = hook.name;
    mutation["mutated"] = r.changed;
    a.audit_annotations.emplace_back("mutation.webhook.admission.k8s.io/" + key_suffix,
                                     compact(mutation));
    if (r.applied_patch.is_array()) {
      nlohmann::ordered_json patch;
      patch["configuration"] = hook.configuration;
      patch["webhook"] = hook.name;
      patch["patch"] = r.applied_patch;
      patch["patchType"] = "JSONPatch";
      a.audit_annotations.emplace_back("patch.webhook.admission.k8s.io/" + key_suffix,
                                       compact(patch));
    }
  }
  Outcome out;
  out.called = true;
  switch (r.kind) {
    case Result::Kind::Allowed:
      note += r.said;
      out.changed = r.changed;
      break;
    case Result::Kind::CallFailed: {
      const std::string error =
          "failed calling webhook " + common::go_quote(hook.name) + ": " + r.call_error;
      if (hook.fail_closed) {
        observed.rejected = true;
        metrics_->observe_rejection(hook.name, type, operation, "calling_webhook_error", r.code);
        note += "failed (Fail): " + r.call_error;
        out.decision = errors::internal_error(error);
      } else {
        note += "failed (Ignore): " + r.call_error;
        a.audit_annotations.emplace_back("failed-open." +
                                             std::string(mutating_ ? "mutation" : "validating") +
                                             ".webhook.admission.k8s.io/" + key_suffix,
                                         hook.name);
      }
      break;
    }
    case Result::Kind::Rejected:
      observed.rejected = true;
      metrics_->observe_rejection(hook.name, type, operation, "no_error", r.code);
      note += "denied: " + r.status.message;
      out.decision = std::move(r.status);
      break;
    case Result::Kind::Internal:
      observed.rejected = true;
      metrics_->observe_rejection(hook.name, type, operation, "apiserver_internal_error", 0);
      note += "refused: " + r.status.message;
      out.decision = std::move(r.status);
      break;
  }
  metrics_->observe(observed);
  return out;
}

Dispatcher::Outcome Dispatcher::call_if_matched(const Webhook& hook, Attributes& a,
                                                std::string& note, int round) const {
  auto should = should_call(hook, a, services_);
  if (auto* status = std::get_if<errors::Status>(&should)) {
    return {*status, false};
  }
  if (auto* invocation = std::get_if<Invocation>(&should)) {
    return call(hook, *invocation, a, note, round);
  }
  return {};
}

std::string Dispatcher::reinvocation_key(const Webhook& hook) {
  return hook.configuration + "/" + std::to_string(hook.index);
}

Decision Dispatcher::run(Attributes& a, std::string& note) const {
  const auto hooks = load_webhooks(
      services_, mutating_ ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations");
  if (hooks.empty()) {
    return std::nullopt;
  }
  if (a.reinvoking) {
    // The chain's second mutating pass: only the webhooks that asked for it, once more.
    if (!mutating_) {
      return std::nullopt;
    }
    for (const auto& hook : hooks) {
      if (a.webhooks_to_reinvoke.count(reinvocation_key(hook)) == 0) {
        continue;
      }
      Outcome out = call_if_matched(hook, a, note, 1);
      if (out.decision) {
        return out.decision;
      }
    }
    return std::nullopt;
  }
  // Round one; a mutating webhook with reinvocationPolicy IfNeeded that ran before another
  // one changed the object is named for the chain's second pass.
  std::set<std::string> invoked_reinvocable;
  for (const auto& hook : hooks) {
    Outcome out = call_if_matched(hook, a, note, 0);
    if (out.decision) {
      return out.decision;
    }
    if (out.changed) {
      a.webhooks_to_reinvoke.insert(invoked_reinvocable.begin(), invoked_reinvocable.end());
    }
    if (mutating_ && hook.reinvoke_if_needed && out.called) {
      invoked_reinvocable.insert(reinvocation_key(hook));
    }
  }
  return std::nullopt;
}

}  // namespace apiserver::admission::webhook
