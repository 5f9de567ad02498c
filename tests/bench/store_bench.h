// What the parts of ks_store_bench share: the configuration (from the flags), the figures each
// side fills in, the keys both write, and each side's entry point.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "bench_util.h"

namespace store_bench {

using bench::Clock;
using bench::fixed;
using bench::ms_since;
using bench::percentile;

struct Config {
  std::string etcd_host = "127.0.0.1";
  std::string etcd_port = "2379";
  bool run_embedded = true;
  bool run_etcd = true;
  std::vector<int> writers = {1, 16, 256};
  int64_t puts = 10000;  // per writer count (the time cap may end it first)
  int range_keys = 10000;
  int range_rounds = 50;
  int watchers = 1000;
  int watch_rounds = 100;
  size_t value_bytes = 256;
  std::chrono::seconds time_cap{15};  // per phase
};

struct PutFigures {
  int64_t done = 0;
  double seconds = 0;
  std::vector<double> latencies_ms;
  bool capped = false;
  std::string error;
};

struct Figures {
  std::map<int, PutFigures> puts;  // by writer count
  std::vector<double> range_ms;
  int64_t range_count = 0;
  std::vector<double> watch_all_ms;   // per round: put issued -> last watcher has it
  std::vector<double> watch_each_ms;  // per round and watcher
  int watch_rounds_done = 0;
  std::vector<std::string> notes;
};

// `prefix` followed by `n` in eight digits: the keys sort in the order they were numbered.
inline std::string key_of(const std::string& prefix, int64_t n) {
  char digits[24];
  std::snprintf(digits, sizeof digits, "%08lld", static_cast<long long>(n));
  return prefix + digits;
}

// The workload against the embedded store, in process (Durability::Sync in a temp dir).
Figures run_embedded(const Config& config);

// The workload against etcd through its JSON gateway; loopback addresses only.
Figures run_etcd(const Config& config);

// The markdown table on stdout; a side that did not run is null and its column shows dashes.
void print_report(const Config& config, const Figures* embedded, const Figures* etcd);

}  // namespace store_bench
