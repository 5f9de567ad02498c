// Calling the webhooks of one kind for one request, as kube-apiserver's mutating and validating
// dispatchers do: which webhooks match (matching.h), the AdmissionReview each is sent
// (review.h), the call (webhook/client.h), and what its answer or its failure means for the
// request under its failurePolicy, sideEffects and dry run.
//
// Mutating webhooks are called one after the other, each seeing the object as the previous ones
// left it; when one changes the object, the webhooks with reinvocationPolicy IfNeeded that were
// called before it are named for reinvocation, and the chain runs its mutating pass once more
// (every in-tree plugin, and only those webhooks), as upstream's reinvoker. Validating webhooks are called one
// after the other too (kube-apiserver calls them in parallel): each is bounded by its own
// timeout, so a request waits at most the sum; the first refusal ends the pass.
//
// Thread-safety: run() is called from many request threads at once; a Dispatcher keeps no
// per-request state.
#pragma once

#include <memory>
#include <string>

#include "admission/plugin.h"
#include "admission/webhook/config.h"
#include "admission/webhook/matching.h"
#include "admission/webhook/metrics.h"

namespace apiserver::admission::webhook {

class Dispatcher {
 public:
  // `mutating`: MutatingWebhookConfigurations (the admit pass), else validating ones.
  Dispatcher(const Services& services, bool mutating);

  // Calls the matching webhooks for `a`; `note` gets one entry per webhook called (for the
  // request's trace). nullopt admits.
  Decision run(Attributes& a, std::string& note) const;

 private:
  struct Outcome {
    Decision decision;     // the request ends with this
    bool changed = false;  // the webhook's patch changed the object
    bool called = false;   // the webhook matched the request and was asked
  };
  // `round`: 0, or 1 for a reinvocation (upstream's audit annotation keys carry it).
  Outcome call(const Webhook& hook, const Invocation& invocation, Attributes& a, std::string& note,
               int round) const;
  // The call when the webhook matches the request; nothing when it does not.
  Outcome call_if_matched(const Webhook& hook, Attributes& a, std::string& note, int round) const;
  // Names a webhook in Attributes::webhooks_to_reinvoke.
  static std::string reinvocation_key(const Webhook& hook);

  const Services& services_;
  bool mutating_;
  std::shared_ptr<WebhookMetrics> metrics_;
};

}  // namespace apiserver::admission::webhook
