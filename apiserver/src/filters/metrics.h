// Request metrics in Prometheus' text format, with kube-apiserver's metric names:
// apiserver_request_total and apiserver_request_duration_seconds by verb, group, version,
// resource, subresource, scope, dry_run and code; apiserver_current_inflight_requests; plus the sandbox's own gauges
// (registered watchers, store revision, database size) supplied by the caller.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace apiserver::filters {

struct RequestLabels {
  std::string verb;  // upper-case HTTP-derived verb as kube-apiserver reports: GET, LIST, WATCH...
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  // "resource" (one named object, or a create), "namespace" or "cluster" (collections), or ""
  // for requests outside the resource API, as kube-apiserver's scope label.
  std::string scope;
  // The request's dryRun values joined with ",", or "" (kube-apiserver's dry_run label).
  std::string dry_run;
  auto operator<=>(const RequestLabels&) const = default;
};

class Metrics {
 public:
  // Gauges read at scrape time: name -> value source.
  using Gauge = std::function<double()>;

  void begin_request() { ++inflight_; }
  void end_request(const RequestLabels& labels, int code, std::chrono::nanoseconds duration);
  void add_gauge(const std::string& name, const std::string& help, Gauge gauge);

  std::string render() const;

 private:
  static constexpr std::array<double, 12> kBuckets = {0.005, 0.01, 0.025, 0.05, 0.1,  0.25,
                                                      0.5,   1,    2.5,   5,    10,   60};
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> counts{};
    uint64_t count = 0;
    double sum = 0;
  };

  std::atomic<int64_t> inflight_{0};
  mutable std::mutex mu_;  // protects totals_, durations_, gauges_
  std::map<std::pair<RequestLabels, int>, uint64_t> totals_;
  std::map<RequestLabels, Histogram> durations_;
  std::vector<std::tuple<std::string, std::string, Gauge>> gauges_;
};

}  // namespace apiserver::filters
