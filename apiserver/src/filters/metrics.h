// Request metrics in Prometheus' text format, with kube-apiserver's metric names:
// apiserver_request_total and apiserver_request_duration_seconds by verb, group, version,
// resource, subresource, scope, component, dry_run and code (only for requests a route served,
// labelled from the registry row, so the number of series is bounded);
// apiserver_current_inflight_requests; plus the sandbox's own gauges (registered watchers, store
// revision, database size) supplied by the caller.
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
  // "apiserver" for resource requests; "" for the health roots, as upstream labels them.
  std::string component = "apiserver";
  auto operator<=>(const RequestLabels&) const = default;
};

// Label values are bounded: a client chooses its method and query, never the label set.
// The verb if kube-apiserver reports it (GET, LIST, WATCH, POST, PUT, PATCH, APPLY, DELETE,
// CONNECT...), else "other".
std::string clean_verb(const std::string& verb);
// The dry_run label: "All" when every value is All, "invalid" otherwise, "" when none is given.
std::string clean_dry_run(const std::vector<std::string>& values);
// ASCII upper case (HTTP methods).
std::string upper_ascii(const std::string& text);

class Metrics {
 public:
  // Gauges read at scrape time: name -> value source.
  using Gauge = std::function<double()>;

  void begin_request() { ++inflight_; }
  void end_request(const RequestLabels& labels, int code, std::chrono::nanoseconds duration);
  // A request no route served (a path nothing knows): in flight until now, counted nowhere.
  void end_uncounted_request() { --inflight_; }
  void add_gauge(const std::string& name, const std::string& help, Gauge gauge);
  // Series another layer keeps (e.g. admission webhooks' counters and histograms), rendered at
  // scrape time after everything else: `render` returns complete families in the text format
  // (HELP, TYPE, samples) and bounds its own number of series. It must not call back into
  // Metrics.
  using Source = std::function<std::string()>;
  void add_source(Source render);

  std::string render() const;

 private:
  static constexpr std::array<double, 12> kBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                      0.5,   1,    2.5,   5,    10,  60};
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> counts{};
    uint64_t count = 0;
    double sum = 0;
  };

  std::atomic<int64_t> inflight_{0};
  mutable std::mutex mu_;  // protects totals_, durations_, gauges_, sources_
  std::map<std::pair<RequestLabels, int>, uint64_t> totals_;
  std::map<RequestLabels, Histogram> durations_;
  std::vector<std::tuple<std::string, std::string, Gauge>> gauges_;
  std::vector<Source> sources_;
};

}  // namespace apiserver::filters
