// The report: the markdown table on stdout, and every figure as JSON.
#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "apiserver_bench_figures.h"

namespace apiserver_bench {

namespace {

double median(const std::vector<double>& v) {
  return percentile(v, 50);
}

std::string mb(int64_t kb) {
  return fixed(static_cast<double>(kb) / 1024.0, 1);
}

std::string rate_cell(const std::optional<Throughput>& t) {
  if (!t || t->ops == 0) {
    return "—";
  }
  return fixed(t->rate(), 0) + "/s" + (t->capped ? " capped" : "");
}

std::string latency_cell(const std::optional<Throughput>& t) {
  if (!t || t->ops == 0) {
    return "—";
  }
  return fixed(percentile(t->latencies_ms, 50), 2) + " / " +
         fixed(percentile(t->latencies_ms, 99), 2);
}

std::string cpu_cell(const std::optional<CpuShare>& c) {
  if (!c) {
    return "—";
  }
  return fixed(c->server, 2) + " / " + fixed(c->bench, 2) + " / " + fixed(c->others, 2);
}

std::optional<CpuShare> cpu_of(const std::optional<Throughput>& t) {
  return t ? std::optional<CpuShare>(t->cpu) : std::nullopt;
}

std::string watch_cell(const std::optional<WatchFigures>& w) {
  if (!w) {
    return "—";
  }
  return fixed(percentile(w->delivery_ms, 50), 1) + " / " +
         fixed(percentile(w->delivery_ms, 99), 1) + " (" + std::to_string(w->delivery_ms.size()) +
         ")";
}

}  // namespace

void print_report(const Config& config, const std::vector<ModeFigures>& modes) {
  std::cout << "| measure |";
  for (const auto& m : modes) {
    std::cout << " kube-sandbox, " << (m.mode == "ephemeral" ? "--ephemeral" : "--data-dir (Sync)")
              << " |";
  }
  std::cout << "\n|---|";
  for (size_t i = 0; i < modes.size(); ++i) {
    std::cout << "---:|";
  }
  std::cout << "\n";
  auto row = [&](const std::string& what,
                 const std::function<std::string(const ModeFigures&)>& cell) {
    std::cout << "| " << what << " |";
    for (const auto& m : modes) {
      std::cout << " " << cell(m) << " |";
    }
    std::cout << "\n";
  };
  std::string runs = std::to_string(config.ready_runs);
  row("ready: exec → /readyz 200, median of " + runs + " ms", [](const ModeFigures& m) {
    return fixed(median(m.ready_ms), 1) +
           (m.mode == "ephemeral" ? " (fresh data dir and PKI)" : " (restart)");
  });
  row("ready: exec → ready file, median ms",
      [](const ModeFigures& m) { return fixed(median(m.ready_file_ms), 1); });
  row("RSS idle, MB (VmRSS; anon + file)", [](const ModeFigures& m) {
    return m.idle.vm_rss_kb == 0 ? "—"
                                 : mb(m.idle.vm_rss_kb) + " (" + mb(m.idle.rss_anon_kb) + " + " +
                                       mb(m.idle.rss_file_kb) + ")";
  });
  std::string clients = std::to_string(config.clients) + " clients";
  row("creates/s, " + clients, [](const ModeFigures& m) { return rate_cell(m.creates); });
  row("create p50 / p99 ms", [](const ModeFigures& m) { return latency_cell(m.creates); });
  row("gets/s, " + clients, [](const ModeFigures& m) { return rate_cell(m.gets); });
  row("get p50 / p99 ms", [](const ModeFigures& m) { return latency_cell(m.gets); });
  row("get+update/s, " + clients, [](const ModeFigures& m) { return rate_cell(m.updates); });
  row("get+update p50 / p99 ms", [](const ModeFigures& m) { return latency_cell(m.updates); });
  row("server-side apply of a " + std::to_string(modes.empty() ? 0 : modes[0].apply_lines) +
          "-line Deployment, p50 / p99 ms (one client)",
      [](const ModeFigures& m) {
        return m.applies ? latency_cell(m.applies) + " (" + std::to_string(m.applies->ops) + ")"
                         : std::string("—");
      });
  row("list " + std::to_string(config.list_items) + " ConfigMaps, p50 / p99 ms (" +
          std::to_string(config.list_rounds) + " lists)",
      [](const ModeFigures& m) {
        if (m.list_ms.empty()) {
          return std::string("—");
        }
        double p50 = percentile(m.list_ms, 50);
        return fixed(p50, 1) + " / " + fixed(percentile(m.list_ms, 99), 1);
      });
  row("the same list, Accept-Encoding: gzip, p50 / p99 ms", [](const ModeFigures& m) {
    if (m.list_gzip_ms.empty()) {
      return std::string("—");
    }
    return fixed(percentile(m.list_gzip_ms, 50), 1) + " / " +
           fixed(percentile(m.list_gzip_ms, 99), 1) + " (" +
           std::to_string(m.list_gzip_bytes / 1024) + " KiB)";
  });
  std::string fan = std::to_string(config.watch_writes) + " writes to " +
                    std::to_string(config.watchers) + " watchers";
  row("watch, " + fan + ", one at a time: p50 / p99 ms (deliveries)",
      [](const ModeFigures& m) { return watch_cell(m.watch_paced); });
  row("watch, " + fan + ", back to back: p50 / p99 ms (deliveries)",
      [](const ModeFigures& m) { return watch_cell(m.watch_burst); });
  row("watch writes, p50 / p99 ms (one at a time; back to back)", [](const ModeFigures& m) {
    if (!m.watch_paced || !m.watch_burst) {
      return std::string("—");
    }
    return fixed(percentile(m.watch_paced->write_ms, 50), 2) + " / " +
           fixed(percentile(m.watch_paced->write_ms, 99), 2) + "; " +
           fixed(percentile(m.watch_burst->write_ms, 50), 2) + " / " +
           fixed(percentile(m.watch_burst->write_ms, 99), 2);
  });
  row("back-to-back round: first write → last delivery, ms", [](const ModeFigures& m) {
    return m.watch_burst ? fixed(m.watch_burst->seconds * 1000, 1) : "—";
  });
  const std::string cpu = "CPU cores, server / bench / other processes: ";
  row(cpu + "creates", [](const ModeFigures& m) { return cpu_cell(cpu_of(m.creates)); });
  row(cpu + "gets", [](const ModeFigures& m) { return cpu_cell(cpu_of(m.gets)); });
  row(cpu + "get+updates", [](const ModeFigures& m) { return cpu_cell(cpu_of(m.updates)); });
  row(cpu + "lists", [](const ModeFigures& m) { return cpu_cell(m.list_cpu); });
  row(cpu + "watch rounds", [](const ModeFigures& m) { return cpu_cell(m.watch_cpu); });
  row("RSS after the lists; after the watch rounds, watchers open, MB", [](const ModeFigures& m) {
    return m.after_load.vm_rss_kb == 0 ? "—"
                                       : mb(m.after_load.vm_rss_kb) + "; " +
                                             (m.after.vm_rss_kb == 0 ? "—" : mb(m.after.vm_rss_kb));
  });
  row("stop on SIGTERM, median ms",
      [](const ModeFigures& m) { return fixed(median(m.stop_ms), 1); });
  std::cout << "\nConfigMaps of " << config.object_bytes << " bytes as sent";
  if (!modes.empty() && modes.front().stored_object_bytes > 0) {
    std::cout << " (" << modes.front().stored_object_bytes << " bytes as served back)";
  }
  if (!modes.empty()) {
    std::cout << "; the list returns " << modes.front().list_total_items << " items in "
              << modes.front().list_bytes << " bytes";
    if (modes.front().watch_other_events > 0) {
      std::cout << "; the watchers also got " << modes.front().watch_other_events
                << " events for objects the benchmark did not write (not timed)";
    }
  }
  std::cout << "; every phase over HTTPS keep-alive connections; " << config.creates << " creates, "
            << config.gets << " gets, " << config.updates << " get+updates, each phase capped at "
            << config.time_cap.count() << " s.\n";
  for (const auto& m : modes) {
    if (!m.error.empty()) {
      std::cout << "\n- " << m.mode << ": FAILED: " << m.error << "\n";
    }
  }
}

namespace {

json stats_json(const std::vector<double>& v) {
  return {{"n", v.size()},
          {"p50", percentile(v, 50)},
          {"p99", percentile(v, 99)},
          {"max", v.empty() ? std::nan("") : *std::max_element(v.begin(), v.end())}};
}

json cpu_json(const std::optional<CpuShare>& c) {
  if (!c) {
    return nullptr;
  }
  return {{"server", c->server}, {"bench", c->bench}, {"others", c->others}};
}

json throughput_json(const std::optional<Throughput>& t) {
  if (!t) {
    return nullptr;
  }
  return {{"ops", t->ops},
          {"seconds", t->seconds},
          {"perSecond", t->rate()},
          {"capped", t->capped},
          {"latencyMs", stats_json(t->latencies_ms)},
          {"cpuCores", cpu_json(t->cpu)}};
}

json watch_json(const std::optional<WatchFigures>& w) {
  if (!w) {
    return nullptr;
  }
  return {{"deliveryMs", stats_json(w->delivery_ms)},
          {"writeMs", stats_json(w->write_ms)},
          {"seconds", w->seconds}};
}

}  // namespace

json report_json(const Config& config, const std::vector<ModeFigures>& modes) {
  json out = {{"clients", config.clients},
              {"objectBytes", config.object_bytes},
              {"cpus", std::thread::hardware_concurrency()},
              {"modes", json::array()}};
  auto proc = [](const ProcStats& p) {
    return json{{"vmRssKb", p.vm_rss_kb},
                {"vmHwmKb", p.vm_hwm_kb},
                {"rssAnonKb", p.rss_anon_kb},
                {"rssFileKb", p.rss_file_kb},
                {"threads", p.threads}};
  };
  for (const auto& m : modes) {
    out["modes"].push_back({{"mode", m.mode},
                            {"readyMs", m.ready_ms},
                            {"readyFileMs", m.ready_file_ms},
                            {"stopMs", m.stop_ms},
                            {"idle", proc(m.idle)},
                            {"afterLoad", proc(m.after_load)},
                            {"afterWatch", proc(m.after)},
                            {"storedObjectBytes", m.stored_object_bytes},
                            {"creates", throughput_json(m.creates)},
                            {"gets", throughput_json(m.gets)},
                            {"getUpdates", throughput_json(m.updates)},
                            {"applies", throughput_json(m.applies)},
                            {"applyLines", m.apply_lines},
                            {"listMs", stats_json(m.list_ms)},
                            {"listBytes", m.list_bytes},
                            {"listGzipMs", stats_json(m.list_gzip_ms)},
                            {"listCpuCores", cpu_json(m.list_cpu)},
                            {"watchCpuCores", cpu_json(m.watch_cpu)},
                            {"listGzipBytes", m.list_gzip_bytes},
                            {"listItems", m.list_total_items},
                            {"watchOtherEvents", m.watch_other_events},
                            {"watchOneAtATime", watch_json(m.watch_paced)},
                            {"watchBackToBack", watch_json(m.watch_burst)},
                            {"error", m.error.empty() ? json(nullptr) : json(m.error)}});
  }
  return out;
}

}  // namespace apiserver_bench
