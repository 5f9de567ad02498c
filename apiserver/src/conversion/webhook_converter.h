// A CRD's conversion webhook (spec.conversion.strategy Webhook): custom resources are sent in a
// ConversionReview (v1 or v1beta1, the first of conversionReviewVersions the server knows) to
// the webhook's url or service, resolved and called as admission webhooks are
// (webhook/resolve.h, webhook/client.h), and the converted objects come back in its answer.
//
// A call is bounded by kube-apiserver's conversion webhook timeout (30 s) and its answer by a size
// cap, so a webhook that hangs or floods costs at most that; its failures read as upstream's:
// `conversion webhook for /, Kind= failed: Post "https://...": context deadline exceeded`,
// `... failed: expected response.uid="...", got "..."`, or the webhook's own result message.
//
// Thread-safety: immutable once built; calls share nothing.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "registry/custom_conversion.h"
#include "webhook/resolve.h"

namespace apiserver::conversion {

// kube-apiserver's bound on one conversion webhook call.
inline constexpr std::chrono::seconds kWebhookTimeout{30};
// kube-sandbox's cap on a conversion webhook's answer (upstream reads it whole).
inline constexpr size_t kMaxAnswerBytes = 64 * 1024 * 1024;

class WebhookConverter final : public registry::CustomConverter {
 public:
  WebhookConverter(webhook::ClientConfig config, std::vector<std::string> review_versions,
                   webhook::Lookups lookups, std::chrono::milliseconds timeout = kWebhookTimeout);

  std::string strategy() const override { return "Webhook"; }
  common::Result<std::vector<nlohmann::json>> convert(const std::vector<nlohmann::json>& objects,
                                                      const std::string& api_version,
                                                      const std::string& what) const override;

 private:
  webhook::ClientConfig config_;
  std::vector<std::string> review_versions_;
  webhook::Lookups lookups_;
  std::chrono::milliseconds timeout_;
};

// The converter a CRD asks for: null for strategy None (or none given), a WebhookConverter for
// Webhook.
std::shared_ptr<const registry::CustomConverter> converter_for(const nlohmann::json& crd,
                                                               webhook::Lookups lookups);

}  // namespace apiserver::conversion
