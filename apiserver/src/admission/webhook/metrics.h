// The admission webhooks' metrics, with kube-apiserver's names and labels:
//   apiserver_admission_webhook_admission_duration_seconds  histogram {name, operation, rejected,
//   type} apiserver_admission_webhook_rejection_count             counter {error_type, name,
//   operation, rejection_code, type} apiserver_admission_webhook_request_total counter {code, name,
//   operation, rejected, type}
// `type` is "admit" or "validating". Label values come from webhook configurations (bounded by
// what is stored) and fixed sets; at most kMaxSeries series per family are kept, later ones are
// dropped. Thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "admission/plugin.h"

namespace apiserver::admission::webhook {

class WebhookMetrics : public std::enable_shared_from_this<WebhookMetrics> {
 public:
  static constexpr size_t kMaxSeries = 2000;

  // The metrics the webhook plugins of the chain over `services` share, registered with
  // services.metrics once it is set.
  static std::shared_ptr<WebhookMetrics> shared_for(const Services& services);

  struct Call {
    std::string name;
    std::string type;       // "admit" or "validating"
    std::string operation;  // CREATE, UPDATE, DELETE, CONNECT
    bool rejected = false;
    int code = 0;  // the HTTP-like code upstream records: 200, the denial's code, 0 for internal
    std::chrono::nanoseconds duration{};
  };
  void observe(const Call& call);
  // error_type: "calling_webhook_error", "apiserver_internal_error" or "no_error".
  void observe_rejection(const std::string& name, const std::string& type,
                         const std::string& operation, const std::string& error_type, int code);

  // Registers the rendering with `services.metrics` (once; a no-op while it is null).
  void attach(const Services& services);
  std::string render() const;

 private:
  static constexpr std::array<double, 8> kBuckets = {0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25};
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> counts{};
    uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mu_;                       // protects the three maps
  std::map<std::string, Histogram> durations_;  // key: rendered labels
  std::map<std::string, uint64_t> rejections_;
  std::map<std::string, uint64_t> requests_;
  std::atomic<bool> attached_{false};
};

}  // namespace apiserver::admission::webhook
