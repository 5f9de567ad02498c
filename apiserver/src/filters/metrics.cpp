#include "filters/metrics.h"

#include <set>
#include <sstream>

namespace apiserver::filters {
namespace {

std::string labels_text(const RequestLabels& l) {
  return "component=\"" + l.component + "\",dry_run=\"" + l.dry_run + "\",group=\"" + l.group +
         "\",resource=\"" + l.resource + "\",scope=\"" + l.scope + "\",subresource=\"" +
         l.subresource + "\",verb=\"" + l.verb + "\",version=\"" + l.version + "\"";
}

std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

std::string clean_verb(const std::string& verb) {
  static const std::set<std::string> kReported = {
      "APPLY", "CONNECT", "CREATE", "DELETE", "DELETECOLLECTION", "GET",   "LIST",
      "PATCH", "POST",    "PROXY",  "PUT",    "UPDATE",           "WATCH", "WATCHLIST"};
  if (verb == "WATCHLIST") {
    return "WATCH";
  }
  return kReported.count(verb) != 0 ? verb : "other";
}

std::string clean_dry_run(const std::vector<std::string>& values) {
  if (values.empty()) {
    return "";
  }
  for (const auto& v : values) {
    if (v != "All") {
      return "invalid";
    }
  }
  return "All";
}

std::string upper_ascii(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') {
      c = static_cast<char>(c - 'a' + 'A');
    }
  }
  return out;
}

void Metrics::end_request(const RequestLabels& labels, int code,
                          std::chrono::nanoseconds duration) {
  --inflight_;
  double seconds = std::chrono::duration<double>(duration).count();
  std::lock_guard lock(mu_);
  ++totals_[{labels, code}];
  Histogram& h = durations_[labels];
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) {
      ++h.counts[i];
    }
  }
  ++h.count;
  h.sum += seconds;
}

void Metrics::add_gauge(const std::string& name, const std::string& help, Gauge gauge) {
  std::lock_guard lock(mu_);
  gauges_.emplace_back(name, help, std::move(gauge));
}

void Metrics::add_source(Source render) {
  std::lock_guard lock(mu_);
  sources_.push_back(std::move(render));
}

std::string Metrics::render() const {
  std::ostringstream out;
  std::lock_guard lock(mu_);
  out << "# HELP apiserver_current_inflight_requests Requests being served now.\n"
      << "# TYPE apiserver_current_inflight_requests gauge\n"
      << "apiserver_current_inflight_requests{request_kind=\"all\"} " << inflight_.load() << "\n";
  out << "# HELP apiserver_request_total Requests served, by verb, resource and code.\n"
      << "# TYPE apiserver_request_total counter\n";
  for (const auto& [key, count] : totals_) {
    out << "apiserver_request_total{code=\"" << key.second << "\"," << labels_text(key.first)
        << "} " << count << "\n";
  }
  out << "# HELP apiserver_request_duration_seconds Response latency, by verb and resource.\n"
      << "# TYPE apiserver_request_duration_seconds histogram\n";
  for (const auto& [labels, h] : durations_) {
    std::string l = labels_text(labels);
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      out << "apiserver_request_duration_seconds_bucket{" << l << ",le=\"" << number(kBuckets[i])
          << "\"} " << h.counts[i] << "\n";
    }
    out << "apiserver_request_duration_seconds_bucket{" << l << ",le=\"+Inf\"} " << h.count << "\n"
        << "apiserver_request_duration_seconds_sum{" << l << "} " << number(h.sum) << "\n"
        << "apiserver_request_duration_seconds_count{" << l << "} " << h.count << "\n";
  }
  for (const auto& [name, help, gauge] : gauges_) {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name << " gauge\n"
        << name << " " << number(gauge()) << "\n";
  }
  for (const auto& source : sources_) {
    out << source();
  }
  return out.str();
}

}  // namespace apiserver::filters
