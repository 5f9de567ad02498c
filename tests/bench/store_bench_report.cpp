// The report: the markdown table, with the disk's own fsync time as the yardstick.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "store_bench.h"

namespace store_bench {

namespace {

std::string put_cell(const Figures* f, int writers, int which) {
  if (f == nullptr || !f->puts.count(writers) || f->puts.at(writers).done == 0) {
    return "—";
  }
  const auto& p = f->puts.at(writers);
  switch (which) {
    case 0:
      return fixed(static_cast<double>(p.done) / p.seconds, 0) + (p.capped ? " (capped)" : "");
    case 1:
      return fixed(percentile(p.latencies_ms, 50), 2);
    default:
      return fixed(percentile(p.latencies_ms, 99), 2);
  }
}

// The disk's own cost of one durable write, the yardstick for a single writer's latency: a 4 KiB
// write at the end of a file followed by fdatasync, p50 over `samples` rounds.
double fsync_p50_ms(int samples) {
  std::string pattern = (std::filesystem::temp_directory_path() / "ks-fsync-XXXXXX").string();
  int fd = mkstemp(pattern.data());
  if (fd < 0) {
    return -1;
  }
  std::string block(4096, 'x');
  std::vector<double> ms;
  for (int i = 0; i < samples; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size()) ||
        fdatasync(fd) != 0) {
      break;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  close(fd);
  unlink(pattern.c_str());
  return ms.empty() ? -1 : percentile(ms, 50);
}

}  // namespace

void print_report(const Config& config, const Figures* embedded, const Figures* etcd) {
  auto row = [](const std::string& what, const std::string& a, const std::string& b) {
    std::cout << "| " << what << " | " << a << " | " << b << " |\n";
  };
  auto both = [&](const std::string& what, auto cell) {
    row(what, embedded ? cell(*embedded) : "—", etcd ? cell(*etcd) : "—");
  };
  std::cout << "One fsync on this disk (4 KiB write + fdatasync), p50: "
            << fixed(fsync_p50_ms(200), 2) << " ms\n\n";
  std::cout << "| workload | embedded store (Sync) | etcd 3.4 (JSON gateway) |\n"
            << "|---|---:|---:|\n";
  for (int w : config.writers) {
    std::string n = std::to_string(w) + (w == 1 ? " writer" : " writers");
    row("durable puts/s, " + n, put_cell(embedded, w, 0), put_cell(etcd, w, 0));
    row("put p50 / p99 ms, " + n, put_cell(embedded, w, 1) + " / " + put_cell(embedded, w, 2),
        put_cell(etcd, w, 1) + " / " + put_cell(etcd, w, 2));
  }
  both("range " + std::to_string(config.range_keys) + " keys, p50 ms", [](const Figures& f) {
    return fixed(percentile(f.range_ms, 50), 2) + " (" + std::to_string(f.range_count) + " kvs)";
  });
  both("watch fan-out to " + std::to_string(config.watchers) + ", all delivered p50 / p99 ms",
       [](const Figures& f) {
         return fixed(percentile(f.watch_all_ms, 50), 2) + " / " +
                fixed(percentile(f.watch_all_ms, 99), 2) + " (" +
                std::to_string(f.watch_rounds_done) + " rounds)";
       });
  both("watch, each watcher p50 / p99 ms", [](const Figures& f) {
    return fixed(percentile(f.watch_each_ms, 50), 2) + " / " +
           fixed(percentile(f.watch_each_ms, 99), 2);
  });
  std::cout << "\nValues of " << config.value_bytes << " bytes; up to " << config.puts
            << " puts per writer count; each phase capped at " << config.time_cap.count()
            << " s. Puts and latencies are measured from the call (embedded) or the request "
               "(etcd) to its acknowledgement; watch delivery is from issuing the put to the "
               "event being in the consumer's hands.\n";
  auto notes = [](const char* side, const Figures* f) {
    if (f == nullptr) {
      return;
    }
    for (const auto& [w, p] : f->puts) {
      if (!p.error.empty()) {
        std::cout << "\n- " << side << ", " << w << " writers: " << p.error;
      }
    }
    for (const auto& note : f->notes) {
      std::cout << "\n- " << note;
    }
  };
  notes("embedded", embedded);
  notes("etcd", etcd);
  std::cout << "\n";
}

}  // namespace store_bench
