// store_bench: the same workload against the embedded store and against an etcd 3.4 server on
// loopback, reported side by side as a markdown table (stdout; progress goes to stderr).
//
//   puts      durable puts/s and per-put latency with 1, 16 and 256 concurrent writers
//   range     one range over 10k keys (whole result in the caller's hands), p50
//   watch     1,000 watchers on a prefix; time from issuing a put to its event being in the
//             hands of every watcher (the slowest of the 1,000), p50/p99 over the rounds
//
// The embedded store runs in process with Durability::Sync in a temp dir. etcd is driven through
// its JSON gateway (POST /v3/kv/put, /v3/kv/range, /v3/kv/txn, /v3/watch) over HTTP/1.1
// keep-alive connections, one per writer or watcher: that path adds HTTP, JSON and base64 and
// the gateway's internal gRPC hop, so etcd's figures are those a JSON client sees, an upper
// bound of what a native gRPC client would. Every loop has a fixed count and a time cap; only
// loopback addresses are accepted. A benchmark, not a test: nothing here asserts timings.
//
// This file holds the flags and main; tests/README.md lists the other parts.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "bench_util.h"
#include "store_bench.h"

namespace store_bench {

namespace {

const char* kUsage =
    "Usage: ks_store_bench [flags]\n\n"
    "Runs the same workload against the embedded store and an etcd 3.4 server on loopback and\n"
    "prints a markdown table.\n\n"
    "Flags:\n"
    "  --etcd HOST:PORT      etcd's client URL on loopback (default 127.0.0.1:2379)\n"
    "  --only embedded|etcd  run one side only\n"
    "  --writers LIST        concurrent writers, comma-separated (default 1,16,256)\n"
    "  --puts N              puts per writer count (default 10000)\n"
    "  --range-keys N        keys in the ranged prefix (default 10000)\n"
    "  --range-rounds N      ranges to time (default 50)\n"
    "  --watchers N          watchers on the watched prefix (default 1000)\n"
    "  --watch-rounds N      puts whose fan-out is timed (default 100)\n"
    "  --value-bytes N       value size (default 256)\n"
    "  --time-cap SECONDS    upper bound of each phase (default 15)\n";

std::optional<Config> parse_args(int argc, char** argv) {
  Config config;
  auto number = bench::parse_count;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (i + 1 >= argc) {
      std::cerr << "ks_store_bench: " << flag << " needs a value\n" << kUsage;
      return std::nullopt;
    }
    std::string value = argv[++i];
    std::optional<int64_t> n;
    if (flag == "--etcd") {
      auto colon = value.rfind(':');
      if (colon == std::string::npos) {
        std::cerr << "ks_store_bench: --etcd wants HOST:PORT\n";
        return std::nullopt;
      }
      config.etcd_host = value.substr(0, colon);
      config.etcd_port = value.substr(colon + 1);
      continue;
    }
    if (flag == "--only") {
      if (value != "embedded" && value != "etcd") {
        std::cerr << "ks_store_bench: --only wants embedded or etcd\n";
        return std::nullopt;
      }
      config.run_embedded = value == "embedded";
      config.run_etcd = value == "etcd";
      continue;
    }
    if (flag == "--writers") {
      config.writers.clear();
      std::stringstream list(value);
      for (std::string item; std::getline(list, item, ',');) {
        auto w = number(item);
        if (!w || *w < 1 || *w > 4096) {
          std::cerr << "ks_store_bench: --writers wants numbers in 1..4096\n";
          return std::nullopt;
        }
        config.writers.push_back(static_cast<int>(*w));
      }
      continue;
    }
    n = number(value);
    if (!n) {
      std::cerr << "ks_store_bench: " << flag << " wants a non-negative integer\n";
      return std::nullopt;
    }
    if (flag == "--puts") {
      config.puts = *n;
    } else if (flag == "--range-keys") {
      config.range_keys = static_cast<int>(*n);
    } else if (flag == "--range-rounds") {
      config.range_rounds = static_cast<int>(*n);
    } else if (flag == "--watchers") {
      config.watchers = static_cast<int>(std::min<int64_t>(*n, 10000));
    } else if (flag == "--watch-rounds") {
      config.watch_rounds = static_cast<int>(*n);
    } else if (flag == "--value-bytes") {
      config.value_bytes = static_cast<size_t>(std::min<int64_t>(*n, 1 << 20));
    } else if (flag == "--time-cap") {
      config.time_cap = std::chrono::seconds(std::max<int64_t>(*n, 1));
    } else {
      std::cerr << "ks_store_bench: unknown flag " << flag << "\n" << kUsage;
      return std::nullopt;
    }
  }
  return config;
}

}  // namespace

}  // namespace store_bench

using store_bench::Figures;
using store_bench::parse_args;
using store_bench::print_report;
using store_bench::run_embedded;
using store_bench::run_etcd;

int main(int argc, char** argv) {
  auto config = parse_args(argc, argv);
  if (!config) {
    return 2;
  }
  bench::raise_open_file_limit();
  try {
    std::optional<Figures> embedded;
    std::optional<Figures> etcd;
    if (config->run_embedded) {
      embedded = run_embedded(*config);
    }
    if (config->run_etcd) {
      etcd = run_etcd(*config);
    }
    print_report(*config, embedded ? &*embedded : nullptr, etcd ? &*etcd : nullptr);
  } catch (const std::exception& e) {
    std::cerr << "ks_store_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
