#include "admission/webhook/metrics.h"

#include <sstream>

#include "filters/metrics.h"

namespace apiserver::admission::webhook {
namespace {

// A label value in the text format: backslash, quote and newline escaped.
std::string label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return "\"" + out + "\"";
}

std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

template <class Map, class Value>
void bump(Map& map, const std::string& key, size_t cap, Value&& update) {
  auto it = map.find(key);
  if (it == map.end()) {
    if (map.size() >= cap) {
      return;
    }
    it = map.emplace(key, typename Map::mapped_type{}).first;
  }
  update(it->second);
}

}  // namespace

std::shared_ptr<WebhookMetrics> WebhookMetrics::shared_for(const Services& services) {
  static std::mutex mu;  // protects shared
  static std::map<const Services*, std::weak_ptr<WebhookMetrics>> shared;
  std::lock_guard lock(mu);
  for (auto it = shared.begin(); it != shared.end();) {
    it = it->second.expired() ? shared.erase(it) : std::next(it);
  }
  auto& slot = shared[&services];
  auto metrics = slot.lock();
  if (!metrics) {
    metrics = std::make_shared<WebhookMetrics>();
    slot = metrics;
  }
  return metrics;
}

void WebhookMetrics::attach(const Services& services) {
  if (services.metrics == nullptr || attached_.exchange(true)) {
    return;
  }
  services.metrics->add_source([self = shared_from_this()] { return self->render(); });
}

void WebhookMetrics::observe(const Call& call) {
  const std::string rejected = call.rejected ? "true" : "false";
  const std::string common = "name=" + label(call.name) + ",operation=" + label(call.operation);
  const std::string duration_key =
      common + ",rejected=" + label(rejected) + ",type=" + label(call.type);
  const std::string request_key = "code=" + label(std::to_string(call.code)) + "," + common +
                                  ",rejected=" + label(rejected) + ",type=" + label(call.type);
  const double seconds = std::chrono::duration<double>(call.duration).count();
  std::lock_guard lock(mu_);
  bump(durations_, duration_key, kMaxSeries, [&](Histogram& h) {
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      if (seconds <= kBuckets[i]) {
        ++h.counts[i];
      }
    }
    ++h.count;
    h.sum += seconds;
  });
  bump(requests_, request_key, kMaxSeries, [](uint64_t& n) { ++n; });
}

void WebhookMetrics::observe_rejection(const std::string& name, const std::string& type,
                                       const std::string& operation, const std::string& error_type,
                                       int code) {
  const std::string key = "error_type=" + label(error_type) + ",name=" + label(name) +
                          ",operation=" + label(operation) +
                          ",rejection_code=" + label(std::to_string(code)) + ",type=" + label(type);
  std::lock_guard lock(mu_);
  bump(rejections_, key, kMaxSeries, [](uint64_t& n) { ++n; });
}

std::string WebhookMetrics::render() const {
  std::ostringstream out;
  std::lock_guard lock(mu_);
  const std::string duration = "apiserver_admission_webhook_admission_duration_seconds";
  out << "# HELP " << duration
      << " Admission webhook latency in seconds, by name, operation, type and rejection.\n"
      << "# TYPE " << duration << " histogram\n";
  for (const auto& [labels, h] : durations_) {
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      out << duration << "_bucket{" << labels << ",le=\"" << number(kBuckets[i]) << "\"} "
          << h.counts[i] << "\n";
    }
    out << duration << "_bucket{" << labels << ",le=\"+Inf\"} " << h.count << "\n"
        << duration << "_sum{" << labels << "} " << number(h.sum) << "\n"
        << duration << "_count{" << labels << "} " << h.count << "\n";
  }
  const std::string rejections = "apiserver_admission_webhook_rejection_count";
  out << "# HELP " << rejections << " Admission webhook rejections, by name, operation, type, "
      << "error type and code.\n# TYPE " << rejections << " counter\n";
  for (const auto& [labels, n] : rejections_) {
    out << rejections << "{" << labels << "} " << n << "\n";
  }
  const std::string requests = "apiserver_admission_webhook_request_total";
  out << "# HELP " << requests << " Admission webhook calls, by name, operation, type, code and "
      << "rejection.\n# TYPE " << requests << " counter\n";
  for (const auto& [labels, n] : requests_) {
    out << requests << "{" << labels << "} " << n << "\n";
  }
  return out.str();
}

}  // namespace apiserver::admission::webhook
