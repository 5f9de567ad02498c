// What one store mode measured: filled by the phases that measure it, read by the report that
// prints it.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "apiserver_bench.h"
#include "apiserver_bench_https.h"
#include "apiserver_bench_server.h"
#include "apiserver_bench_workload.h"

namespace apiserver_bench {

struct WatchFigures {
  std::vector<double> delivery_ms;  // per (write, watcher): write start -> watcher has it
  std::vector<double> write_ms;     // each write's own latency
  double seconds = 0;               // first write start -> last delivery
};

struct ModeFigures {
  std::string mode;
  std::vector<double> ready_file_ms;  // exec -> ready file
  std::vector<double> ready_ms;       // exec -> /readyz 200
  std::vector<double> stop_ms;        // SIGTERM -> exit 0
  ProcStats idle;
  ProcStats after_load;  // after the creates, gets, updates and lists, before the watchers
  ProcStats after;       // after the watch rounds, the watchers still open
  size_t stored_object_bytes = 0;
  std::optional<Throughput> creates;
  std::optional<Throughput> gets;
  std::optional<Throughput> updates;
  std::optional<Throughput> applies;
  size_t apply_lines = 0;  // of the applied manifest
  std::vector<double> list_ms;
  std::vector<double> list_gzip_ms;  // the same list with Accept-Encoding: gzip, as client-go asks
  size_t list_gzip_bytes = 0;
  size_t list_bytes = 0;
  size_t list_total_items = 0;  // the benchmark's and what controllers add (kube-root-ca.crt)
  int watch_other_events = 0;
  std::optional<CpuShare> list_cpu;   // both kinds of list
  std::optional<CpuShare> watch_cpu;  // both watch rounds
  std::optional<WatchFigures> watch_paced;
  std::optional<WatchFigures> watch_burst;
  std::string error;
};

// Starts the server in `figures.mode` (the timed starts), then runs every phase against the last
// one started: creates, gets, get+updates, applies, lists and the watch rounds.
void run_mode(const Config& config, const fs::path& work, ModeFigures& figures);

// Opens the watchers, runs the one-at-a-time and the back-to-back rounds, reads the server's RSS
// and calls `stop_server` with the watches still open, as a real shutdown meets them.
void run_watch(const Target& target, const Config& config, ModeFigures& figures, pid_t server,
               const std::function<void()>& stop_server);

// The markdown table on stdout, one column per store mode.
void print_report(const Config& config, const std::vector<ModeFigures>& modes);

// Every figure as JSON (--json).
json report_json(const Config& config, const std::vector<ModeFigures>& modes);

}  // namespace apiserver_bench
