// The workload: the objects the benchmark sends, the clients that send them concurrently (one
// keep-alive connection each), and the CPU they and the server use meanwhile.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "apiserver_bench.h"
#include "apiserver_bench_https.h"
#include "apiserver_bench_server.h"

namespace apiserver_bench {

// Object number `n` of a series: prefix-0000042.
std::string name_of(const char* prefix, int64_t n);

// A ConfigMap whose JSON, as sent on create, is `bytes` long: the data value pads it. Updates
// carry the same value length plus their resourceVersion.
std::string configmap(const std::string& ns, const std::string& name, size_t bytes, char fill,
                      int64_t resource_version = 0);

// The collection of a namespace's ConfigMaps.
std::string configmaps_path(const std::string& ns);

// User + system CPU seconds this process (the benchmark) has used so far.
double self_cpu_seconds();

// CPU time over a stretch of the run, in cores (CPU seconds per second): the server's, this
// benchmark's (the clients'), and every other process's. The last one says how much the figures
// were disturbed by whatever else ran on the machine.
struct CpuShare {
  double server = 0;
  double bench = 0;
  double others = 0;
};

class CpuMeter {
 public:
  explicit CpuMeter(pid_t server) : server_(server), start_(now()) {}

  CpuShare read() const {
    Sample end = now();
    double wall = ms_since(start_.at, end.at) / 1000;
    if (wall <= 0) {
      return {};
    }
    CpuShare out;
    out.server = (end.server - start_.server) / wall;
    out.bench = (end.bench - start_.bench) / wall;
    out.others = std::max(0.0, (end.machine - start_.machine) / wall - out.server - out.bench);
    return out;
  }

 private:
  struct Sample {
    Clock::time_point at;
    double server;
    double bench;
    double machine;  // busy CPU seconds of the whole machine, from /proc/stat
  };

  Sample now() const {
    Sample s{Clock::now(), cpu_seconds(server_), self_cpu_seconds(), 0};
    std::ifstream in("/proc/stat");
    std::string cpu;
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    s.machine =
        (user + nice + system + irq + softirq + steal) / static_cast<double>(sysconf(_SC_CLK_TCK));
    return s;
  }

  const pid_t server_;
  const Sample start_;
};

struct Throughput {
  int64_t ops = 0;
  double seconds = 0;
  std::vector<double> latencies_ms;
  bool capped = false;
  CpuShare cpu;

  double rate() const { return seconds > 0 ? static_cast<double>(ops) / seconds : 0; }
};

// Hands out operation numbers to the clients of a phase until the count, the time cap or an
// error ends it.
class Work {
 public:
  explicit Work(int64_t total) : total_(total) {}

  // Sets the time cap; called before the clients are released.
  void begin(Clock::time_point deadline) { deadline_ = deadline; }

  // The next operation number, or -1 when the phase is over.
  int64_t take() {
    if (stop_.load()) {
      return -1;
    }
    if (Clock::now() >= deadline_) {
      capped_ = true;
      return -1;
    }
    int64_t i = next_++;
    return i < total_ ? i : -1;
  }
  void stop() { stop_ = true; }
  bool capped() const { return capped_.load(); }

 private:
  const int64_t total_;
  Clock::time_point deadline_ = Clock::time_point::max();  // written before the clients start
  std::atomic<int64_t> next_{0};
  std::atomic<bool> stop_{false};
  std::atomic<bool> capped_{false};
};

// One client: a connection, its number, the work dispenser, and where its latencies go.
using ClientBody =
    std::function<void(BlockingConnection&, int client, Work&, std::vector<double>& samples)>;

// `clients` threads, each with its own keep-alive connection, opened before the clock starts;
// every operation's latency is sampled.
Throughput run_clients(const Target& target, pid_t server, int clients, int64_t total,
                       std::chrono::seconds cap, const ClientBody& body);

// Creates ConfigMaps name_of(prefix, 0..) in `ns` with `clients` clients.
Throughput create_configmaps(const Target& target, pid_t server, const Config& config,
                             const std::string& ns, const char* prefix, int64_t count,
                             std::chrono::seconds cap);

// A Deployment manifest of 200 lines of YAML, as people write them: three containers with env,
// ports, probes, resources, security context and mounts. The two variants differ in image tags, env
// values and replicas, so every apply changes the object.
const std::string& deployment_yaml(int variant);

// Creates the namespace `name` (HTTP 201 expected).
awaitable<void> create_namespace(Connection& conn, const std::string& name);

}  // namespace apiserver_bench
