// ks_etcd_wire_bench: one gRPC client for any etcd v3 endpoint, so that kube-sandbox's endpoint
// and etcd are measured the same way (run-etcd-wire-bench.sh starts both). Workloads:
//   puts      N clients, each putting its own keys back to back, for a fixed time
//   range     a range of every key under a prefix of `--range-keys` keys, repeated
//   watch     one watch on a prefix while 16 clients put: events delivered per second
// Prints one JSON line per measurement; for puts also the CPU time per put of this client and,
// given --server-pid, of the server.
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <atomic>
#include <cmath>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "etcdserverpb/rpc.grpc.pb.h"

namespace pb = etcdserverpb;

namespace {

struct Options {
  std::string target;  // host:port
  std::string label;
  std::vector<int64_t> clients = {1, 16, 256};
  int64_t seconds = 10;
  int64_t value_bytes = 256;
  int64_t connections = 8;
  int64_t range_keys = 10000;
  int64_t server_pid = 0;  // when given, the server's CPU time per operation is reported too
};

// CPU seconds used by this client and by the server (when its pid is known) over one phase.
struct CpuMeter {
  explicit CpuMeter(const Options& options)
      : server_pid(options.server_pid),
        client_start(bench::own_cpu_seconds()),
        server_start(server_pid ? bench::process_cpu_seconds(server_pid) : std::nan("")) {}

  // Microseconds of CPU per operation, for the client and the server, as JSON fields.
  void add_to(nlohmann::json& line, double ops) const {
    if (ops <= 0) {
      return;
    }
    line["client_cpu_us_per_op"] = (bench::own_cpu_seconds() - client_start) * 1e6 / ops;
    if (server_pid) {
      double server = bench::process_cpu_seconds(server_pid) - server_start;
      if (!std::isnan(server)) {
        line["server_cpu_us_per_op"] = server * 1e6 / ops;
      }
    }
  }

  int64_t server_pid;
  double client_start;
  double server_start;
};

// Channels that do not share a connection (gRPC pools identical channels otherwise).
std::vector<std::shared_ptr<grpc::Channel>> open_channels(const Options& options) {
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int64_t i = 0; i < options.connections; ++i) {
    grpc::ChannelArguments arguments;
    arguments.SetInt("kube-sandbox.bench.connection", static_cast<int>(i));
    arguments.SetMaxReceiveMessageSize(256 << 20);
    channels.push_back(
        grpc::CreateCustomChannel(options.target, grpc::InsecureChannelCredentials(), arguments));
  }
  return channels;
}

bool put(pb::KV::Stub& kv, const std::string& key, const std::string& value) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  pb::PutRequest request;
  request.set_key(key);
  request.set_value(value);
  pb::PutResponse response;
  return kv.Put(&context, request, &response).ok();
}

void report(const Options& options, const std::string& workload, int64_t clients, double ops,
            double seconds, std::vector<double>& latencies, int64_t errors,
            const CpuMeter* cpu = nullptr) {
  nlohmann::json line = {{"server", options.label},
                         {"workload", workload},
                         {"clients", clients},
                         {"ops", ops},
                         {"per_second", seconds > 0 ? ops / seconds : 0},
                         {"p50_ms", bench::percentile(latencies, 50)},
                         {"p99_ms", bench::percentile(latencies, 99)},
                         {"errors", errors}};
  if (cpu) {
    cpu->add_to(line, ops);
  }
  std::cout << line.dump() << std::endl;
}

void run_puts(const Options& options, int64_t clients) {
  auto channels = open_channels(options);
  const std::string value(static_cast<size_t>(options.value_bytes), 'v');
  std::atomic<int64_t> errors{0};
  std::mutex merge;
  std::vector<double> latencies;
  int64_t done = 0;
  const CpuMeter cpu(options);
  const auto start = bench::Clock::now();
  const auto until = start + std::chrono::seconds(options.seconds);
  std::vector<std::thread> threads;
  for (int64_t c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      auto kv = pb::KV::NewStub(channels[static_cast<size_t>(c) % channels.size()]);
      std::vector<double> mine;
      int64_t n = 0;
      while (bench::Clock::now() < until) {
        auto sent = bench::Clock::now();
        if (!put(*kv, "bench/" + std::to_string(c) + "/" + std::to_string(n % 1000), value)) {
          ++errors;
          continue;
        }
        mine.push_back(bench::ms_since(sent, bench::Clock::now()));
        ++n;
      }
      std::lock_guard lock(merge);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
      done += n;
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  double seconds = bench::ms_since(start, bench::Clock::now()) / 1000.0;
  report(options, "puts", clients, static_cast<double>(done), seconds, latencies, errors, &cpu);
}

void run_range(const Options& options) {
  auto channels = open_channels(options);
  auto kv = pb::KV::NewStub(channels[0]);
  const std::string value(static_cast<size_t>(options.value_bytes), 'r');
  // Load with txns of 100 puts (etcd's default limit is 128 operations).
  for (int64_t i = 0; i < options.range_keys; i += 100) {
    grpc::ClientContext context;
    pb::TxnRequest txn;
    for (int64_t k = i; k < std::min(i + 100, options.range_keys); ++k) {
      auto* p = txn.add_success()->mutable_request_put();
      p->set_key("range/" + std::to_string(k));
      p->set_value(value);
    }
    pb::TxnResponse response;
    if (!kv->Txn(&context, txn, &response).ok()) {
      std::cerr << "ks_etcd_wire_bench: loading the range keys failed\n";
      return;
    }
  }
  std::vector<double> latencies;
  int64_t errors = 0;
  const auto start = bench::Clock::now();
  const auto until = start + std::chrono::seconds(options.seconds);
  while (bench::Clock::now() < until) {
    grpc::ClientContext context;
    pb::RangeRequest request;
    request.set_key("range/");
    request.set_range_end("range0");
    pb::RangeResponse response;
    auto sent = bench::Clock::now();
    if (!kv->Range(&context, request, &response).ok() ||
        response.kvs_size() != options.range_keys) {
      ++errors;
      continue;
    }
    latencies.push_back(bench::ms_since(sent, bench::Clock::now()));
  }
  double seconds = bench::ms_since(start, bench::Clock::now()) / 1000.0;
  report(options, "range " + std::to_string(options.range_keys) + " keys", 1,
         static_cast<double>(latencies.size()), seconds, latencies, errors);
}

// One watcher on "watch/" while 16 writers put there for the run's time; events per second
// delivered, counted from the first put to the last event received.
void run_watch(const Options& options) {
  auto channels = open_channels(options);
  auto watch = pb::Watch::NewStub(channels[0]);
  grpc::ClientContext watch_context;
  auto stream = watch->Watch(&watch_context);
  pb::WatchRequest create;
  create.mutable_create_request()->set_key("watch/");
  create.mutable_create_request()->set_range_end("watch0");
  pb::WatchResponse response;
  if (!stream->Write(create) || !stream->Read(&response) || !response.created()) {
    std::cerr << "ks_etcd_wire_bench: the watch was not created\n";
    return;
  }
  std::atomic<int64_t> written{0};
  std::atomic<bool> writing{true};
  const std::string value(static_cast<size_t>(options.value_bytes), 'w');
  const auto start = bench::Clock::now();
  const auto until = start + std::chrono::seconds(options.seconds);
  std::vector<std::thread> writers;
  for (int c = 0; c < 16; ++c) {
    writers.emplace_back([&, c] {
      auto kv = pb::KV::NewStub(channels[static_cast<size_t>(c) % channels.size()]);
      for (int64_t n = 0; bench::Clock::now() < until; ++n) {
        if (put(*kv, "watch/" + std::to_string(c) + "/" + std::to_string(n % 1000), value)) {
          ++written;
        }
      }
    });
  }
  std::atomic<int64_t> received{0};
  auto last = start;
  // Once the writers are done, the watcher has 10 s to catch up; then its stream is cancelled.
  std::thread stopper([&] {
    for (auto& t : writers) {
      t.join();
    }
    writing = false;
    const auto deadline = bench::Clock::now() + std::chrono::seconds(10);
    while (received < written && bench::Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    watch_context.TryCancel();
  });
  while (stream->Read(&response)) {
    if (response.events_size() > 0) {
      received += response.events_size();
      last = bench::Clock::now();
    }
  }
  stopper.join();
  std::vector<double> none;
  report(options, "watch events", 16, static_cast<double>(received.load()),
         bench::ms_since(start, last) / 1000.0, none, written.load() - received.load());
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  std::vector<std::string> workloads = {"puts", "range", "watch"};
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    std::string value = argv[i + 1];
    auto number = bench::parse_count(value);
    if (flag == "--target") {
      options.target = value;
    } else if (flag == "--label") {
      options.label = value;
    } else if (flag == "--seconds" && number) {
      options.seconds = *number;
    } else if (flag == "--connections" && number && *number > 0) {
      options.connections = *number;
    } else if (flag == "--range-keys" && number) {
      options.range_keys = *number;
    } else if (flag == "--server-pid" && number && *number > 0) {
      options.server_pid = *number;
    } else if (flag == "--clients") {
      options.clients.clear();
      size_t start = 0;
      while (start <= value.size()) {
        size_t comma = value.find(',', start);
        auto n = bench::parse_count(value.substr(start, comma - start));
        if (!n || *n < 1 || *n > 4096) {
          std::cerr << "ks_etcd_wire_bench: --clients wants numbers in 1..4096\n";
          return 2;
        }
        options.clients.push_back(*n);
        if (comma == std::string::npos) {
          break;
        }
        start = comma + 1;
      }
    } else if (flag == "--workloads") {
      workloads.clear();
      size_t start = 0;
      while (start <= value.size()) {
        size_t comma = value.find(',', start);
        workloads.push_back(value.substr(start, comma - start));
        if (comma == std::string::npos) {
          break;
        }
        start = comma + 1;
      }
    } else {
      std::cerr << "usage: ks_etcd_wire_bench --target HOST:PORT [--label NAME] [--seconds N]\n"
                   "  [--clients 1,16,256] [--connections 8] [--range-keys 10000]\n"
                   "  [--workloads puts,range,watch] [--server-pid PID]\n";
      return 2;
    }
  }
  if (options.target.empty()) {
    std::cerr << "ks_etcd_wire_bench: --target is required\n";
    return 2;
  }
  bench::raise_open_file_limit();
  for (const auto& workload : workloads) {
    if (workload == "puts") {
      for (int64_t clients : options.clients) {
        run_puts(options, clients);
      }
    } else if (workload == "range") {
      run_range(options);
    } else if (workload == "watch") {
      run_watch(options);
    }
  }
  return 0;
}
