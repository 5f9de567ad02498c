// One store mode: the server started (and timed) in that mode, then the throughput phases
// (creates, gets, get+updates, applies), the lists and the watch rounds against it.
#include <algorithm>
#include <chrono>
#include <exception>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "apiserver_bench_figures.h"

namespace apiserver_bench {

namespace {

struct Started {
  std::unique_ptr<ServerProcess> process;
  Endpoint endpoint;
  double ready_file_ms = 0;
  double ready_ms = 0;
};

Started start_server(const Config& config, const fs::path& work, const std::string& mode,
                     const std::string& label) {
  fs::path ready_file = work / ("ready-" + label + ".json");
  std::vector<std::string> args = {"serve", "--secure-port", "0", "--ready-file",
                                   ready_file.string()};
  if (mode == "ephemeral") {
    args.push_back("--ephemeral");
  } else {
    args.push_back("--data-dir");
    args.push_back((work / "data").string());
  }
  Started s;
  s.process = std::make_unique<ServerProcess>(config.binary, args, ready_file,
                                              work / ("serve-" + label + ".log"));
  auto file_at = s.process->wait_for_ready_file(std::chrono::seconds(60));
  s.ready_file_ms = ms_since(s.process->started(), file_at);
  s.endpoint = read_ready_file(ready_file);
  // /readyz on a fresh connection, as a probe would: anonymous callers may read it.
  Target anonymous = make_target(s.endpoint, false);
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (true) {
    unsigned status = 0;
    std::string failure;
    try {
      status = run_blocking<unsigned>([&]() -> awaitable<unsigned> {
        Connection conn(co_await asio::this_coro::executor, anonymous);
        co_await conn.open();
        Reply reply = co_await conn.call(http::verb::get, "/readyz");
        co_return reply.status;
      });
    } catch (const std::exception& e) {
      failure = e.what();
    }
    if (status == 200) {
      break;
    }
    if (Clock::now() > deadline) {
      throw BenchError("/readyz did not answer 200 within 30 s of the ready file (last: " +
                       (failure.empty() ? "HTTP " + std::to_string(status) : failure) + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  s.ready_ms = ms_since(s.process->started(), Clock::now());
  std::string token = read_text(s.endpoint.data_dir / "pki" / "admin.token");
  token.erase(token.find_last_not_of(" \t\r\n") + 1);
  s.endpoint.token = token;
  return s;
}

}  // namespace

void run_mode(const Config& config, const fs::path& work, ModeFigures& figures) {
  const std::string& mode = figures.mode;
  const auto grace = std::chrono::seconds(20);
  if (mode == "durable") {
    // The first start creates the data directory and its PKI; the timed ones are restarts.
    std::cerr << mode << ": first start (creates the data directory)\n";
    auto first = start_server(config, work, mode, mode + "-first");
    first.process->stop(grace);
  }
  Started server;
  for (int r = 0; r < config.ready_runs; ++r) {
    std::cerr << mode << ": timed start " << r + 1 << " of " << config.ready_runs << "\n";
    server = start_server(config, work, mode, mode + "-" + std::to_string(r));
    figures.ready_file_ms.push_back(server.ready_file_ms);
    figures.ready_ms.push_back(server.ready_ms);
    if (r + 1 < config.ready_runs) {
      figures.stop_ms.push_back(server.process->stop(grace));
    }
  }
  // The last one started serves the workload.
  pid_t pid = server.process->pid();
  std::this_thread::sleep_for(std::chrono::seconds(config.idle_seconds));
  figures.idle = proc_stats(pid);
  Target target = make_target(server.endpoint, true);

  run_blocking<int>([&]() -> awaitable<int> {
    Connection conn(co_await asio::this_coro::executor, target);
    co_await conn.open();
    co_await create_namespace(conn, "bench");
    co_await create_namespace(conn, "bench-list");
    co_return 0;
  });

  std::cerr << mode << ": " << config.creates << " creates, " << config.clients << " clients\n";
  figures.creates =
      create_configmaps(target, pid, config, "bench", "cm", config.creates, config.time_cap);
  const int64_t created = figures.creates->ops;
  if (created == 0) {
    throw BenchError("no ConfigMap was created");
  }

  figures.stored_object_bytes = run_blocking<size_t>([&]() -> awaitable<size_t> {
    Connection conn(co_await asio::this_coro::executor, target);
    co_await conn.open();
    std::string path = configmaps_path("bench") + "/" + name_of("cm", 0);
    Reply reply = co_await conn.call(http::verb::get, path);
    expect(reply, 200, "GET " + path);
    co_return reply.body.size();
  });

  std::cerr << mode << ": " << config.gets << " gets\n";
  figures.gets = run_clients(
      target, pid, config.clients, config.gets, config.time_cap,
      [&](BlockingConnection& conn, int client, Work& work, std::vector<double>& samples) {
        std::mt19937_64 rng(1000 + client);
        std::uniform_int_distribution<int64_t> pick(0, created - 1);
        const std::string base = configmaps_path("bench") + "/";
        for (int64_t i = work.take(); i >= 0; i = work.take()) {
          std::string path = base + name_of("cm", pick(rng));
          auto t0 = Clock::now();
          Reply reply = conn.call(http::verb::get, path);
          samples.push_back(ms_since(t0, Clock::now()));
          expect(reply, 200, "GET " + path);
        }
      });

  std::cerr << mode << ": " << config.updates << " get+updates\n";
  figures.updates = run_clients(
      target, pid, config.clients, config.updates, config.time_cap,
      [&](BlockingConnection& conn, int client, Work& work, std::vector<double>& samples) {
        // Client c updates only the objects numbered c modulo the client count: no conflicts.
        const int64_t own = (created - 1 - client) / config.clients + 1;
        if (own <= 0) {
          return;
        }
        std::mt19937_64 rng(2000 + client);
        std::uniform_int_distribution<int64_t> pick(0, own - 1);
        const std::string base = configmaps_path("bench") + "/";
        for (int64_t i = work.take(); i >= 0; i = work.take()) {
          std::string name = name_of("cm", client + pick(rng) * config.clients);
          std::string path = base + name;
          auto t0 = Clock::now();
          Reply got = conn.call(http::verb::get, path);
          expect(got, 200, "GET " + path);
          auto rv = find_resource_version(got.body);
          if (!rv) {
            throw BenchError("GET " + path + ": no resourceVersion in " + got.body.substr(0, 200));
          }
          std::string body = configmap("bench", name, config.object_bytes, i % 2 ? 'a' : 'b', *rv);
          Reply put = conn.call(http::verb::put, path, body);
          samples.push_back(ms_since(t0, Clock::now()));
          expect(put, 200, "PUT " + path);
        }
      });

  if (config.applies > 0) {
    std::cerr << mode << ": " << config.applies << " applies\n";
    figures.apply_lines =
        static_cast<size_t>(std::count(deployment_yaml(0).begin(), deployment_yaml(0).end(), '\n'));
    figures.applies =
        run_clients(target, pid, 1, config.applies, config.time_cap,
                    [&](BlockingConnection& conn, int, Work& work, std::vector<double>& samples) {
                      const std::string path =
                          "/apis/apps/v1/namespaces/bench/deployments/web"
                          "?fieldManager=ks-apiserver-bench";
                      for (int64_t i = work.take(); i >= 0; i = work.take()) {
                        auto t0 = Clock::now();
                        Reply reply = conn.call(http::verb::patch, path, deployment_yaml(i % 2),
                                                "application/apply-patch+yaml");
                        samples.push_back(ms_since(t0, Clock::now()));
                        expect(reply, i == 0 ? 201 : 200, "apply " + path);
                      }
                    });
  }

  std::cerr << mode << ": loading " << config.list_items << " ConfigMaps to list\n";
  auto loaded = create_configmaps(target, pid, config, "bench-list", "item", config.list_items,
                                  std::chrono::seconds(600));
  if (loaded.ops != config.list_items) {
    throw BenchError("loaded only " + std::to_string(loaded.ops) + " ConfigMaps to list");
  }
  std::cerr << mode << ": " << config.list_rounds << " lists\n";
  CpuMeter list_meter(pid);
  run_blocking<int>([&]() -> awaitable<int> {
    Connection conn(co_await asio::this_coro::executor, target);
    co_await conn.open();
    const std::string path = configmaps_path("bench-list");
    for (int r = 0; r < config.list_rounds; ++r) {
      auto t0 = Clock::now();
      Reply reply = co_await conn.call(http::verb::get, path);
      figures.list_ms.push_back(ms_since(t0, Clock::now()));
      expect(reply, 200, "LIST " + path);
      if (r == 0) {
        // Checked once, outside the timing.
        figures.list_bytes = reply.body.size();
        auto doc = json::parse(reply.body);
        int ours = 0;
        for (const auto& item : doc.value("items", json::array())) {
          ours += item["metadata"].value("name", "").rfind("item-", 0) == 0 ? 1 : 0;
        }
        figures.list_total_items = doc.value("items", json::array()).size();
        if (ours != config.list_items) {
          throw BenchError("LIST " + path + " returned " + std::to_string(ours) + " of the " +
                           std::to_string(config.list_items) + " ConfigMaps created");
        }
      }
    }
    // client-go sends Accept-Encoding: gzip unless told not to; the body is not decompressed.
    for (int r = 0; r < config.list_rounds; ++r) {
      auto t0 = Clock::now();
      Reply reply = co_await conn.call(http::verb::get, path, {}, true);
      figures.list_gzip_ms.push_back(ms_since(t0, Clock::now()));
      expect(reply, 200, "LIST " + path + " (gzip)");
      figures.list_gzip_bytes = reply.body.size();
      if (reply.content_encoding != "gzip" && reply.body.size() != figures.list_bytes) {
        throw BenchError("LIST " + path + " (gzip): " + std::to_string(reply.body.size()) +
                         " bytes, not gzipped, unlike the plain list's " +
                         std::to_string(figures.list_bytes));
      }
    }
    co_return 0;
  });
  figures.list_cpu = list_meter.read();

  figures.after_load = proc_stats(pid);
  std::cerr << mode << ": watch\n";
  run_watch(target, config, figures, pid,
            [&] { figures.stop_ms.push_back(server.process->stop(grace)); });
}

}  // namespace apiserver_bench
