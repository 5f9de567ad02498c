// The workload: the objects sent and the concurrent clients that send them.
#include "apiserver_bench_workload.h"

#include <array>
#include <barrier>
#include <cstdio>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace apiserver_bench {

std::string name_of(const char* prefix, int64_t n) {
  char text[40];
  std::snprintf(text, sizeof text, "%s-%07lld", prefix, static_cast<long long>(n));
  return text;
}

std::string configmap(const std::string& ns, const std::string& name, size_t bytes, char fill,
                      int64_t resource_version) {
  auto build = [&](size_t pad, int64_t rv) {
    std::string out = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
                      R"(","namespace":")" + ns + "\"";
    if (rv > 0) {
      out += R"(,"resourceVersion":")" + std::to_string(rv) + "\"";
    }
    out += R"(},"data":{"value":")" + std::string(pad, fill) + "\"}}";
    return out;
  };
  size_t frame = build(0, 0).size();
  return build(bytes > frame ? bytes - frame : 1, resource_version);
}

std::string configmaps_path(const std::string& ns) {
  return "/api/v1/namespaces/" + ns + "/configmaps";
}

double self_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

Throughput run_clients(const Target& target, pid_t server, int clients, int64_t total,
                       std::chrono::seconds cap, const ClientBody& body) {
  Throughput out;
  std::barrier ready(clients + 1);
  std::mutex mu;  // guards out.latencies_ms and error while clients merge their results
  std::string error;
  Work work(total);
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      BlockingConnection conn(target);
      std::vector<double> samples;
      std::string failure;
      try {
        conn.open();
      } catch (const std::exception& e) {
        failure = std::string("connecting: ") + e.what();
      }
      ready.arrive_and_wait();  // the main thread starts the clock
      if (failure.empty()) {
        try {
          body(conn, c, work, samples);
        } catch (const std::exception& e) {
          failure = e.what();
        }
      }
      std::lock_guard lock(mu);
      out.latencies_ms.insert(out.latencies_ms.end(), samples.begin(), samples.end());
      if (!failure.empty()) {
        if (error.empty()) {
          error = failure;
        }
        work.stop();
      }
    });
  }
  CpuMeter meter(server);
  auto start = Clock::now();
  work.begin(start + cap);
  ready.arrive_and_wait();
  for (auto& t : threads) {
    t.join();
  }
  out.seconds = ms_since(start, Clock::now()) / 1000;
  out.cpu = meter.read();
  out.ops = static_cast<int64_t>(out.latencies_ms.size());
  out.capped = work.capped();
  if (!error.empty()) {
    throw BenchError(error);
  }
  return out;
}

Throughput create_configmaps(const Target& target, pid_t server, const Config& config,
                             const std::string& ns, const char* prefix, int64_t count,
                             std::chrono::seconds cap) {
  return run_clients(
      target, server, config.clients, count, cap,
      [&, prefix](BlockingConnection& conn, int, Work& work, std::vector<double>& samples) {
        const std::string path = configmaps_path(ns);
        for (int64_t i = work.take(); i >= 0; i = work.take()) {
          std::string name = name_of(prefix, i);
          std::string body = configmap(ns, name, config.object_bytes, 'c');
          auto t0 = Clock::now();
          Reply reply = conn.call(http::verb::post, path, body);
          samples.push_back(ms_since(t0, Clock::now()));
          expect(reply, 201, "POST " + path + " " + name);
        }
      });
}

const std::string& deployment_yaml(int variant) {
  static const std::array<std::string, 2> manifests = [] {
    std::array<std::string, 2> out;
    for (int v = 0; v < 2; ++v) {
      std::string y;
      y += "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: bench\n";
      y += "  labels:\n    app: web\n    tier: frontend\n    team: platform\n";
      y += "  annotations:\n    example.com/owner: platform-team\n    example.com/revision: \"" +
           std::to_string(v) + "\"\n";
      y += "spec:\n  replicas: " + std::to_string(3 + v) + "\n  revisionHistoryLimit: 5\n";
      y += "  selector:\n    matchLabels:\n      app: web\n";
      y += "  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: 1\n"
           "      maxUnavailable: 0\n";
      y += "  template:\n    metadata:\n      labels:\n        app: web\n        tier: frontend\n";
      y += "    spec:\n      terminationGracePeriodSeconds: 30\n      containers:\n";
      const char* names[] = {"app", "sidecar", "metrics"};
      for (int c = 0; c < 3; ++c) {
        std::string port = std::to_string(8080 + c);
        y += "      - name: " + std::string(names[c]) + "\n";
        y += "        image: registry.example.com/" + std::string(names[c]) + ":1." +
             std::to_string(v) + "." + std::to_string(c) + "\n";
        y += "        imagePullPolicy: IfNotPresent\n";
        y += "        args:\n        - --port=" + port + "\n        - --log-level=info\n";
        y += "        ports:\n        - name: http-" + std::to_string(c) +
             "\n          containerPort: " + port + "\n          protocol: TCP\n";
        y += "        env:\n";
        for (int e = 0; e < 10; ++e) {
          y += "        - name: SETTING_" + std::to_string(e) + "\n          value: \"value-" +
               std::to_string(e * 10 + v) + "\"\n";
        }
        y += "        resources:\n          requests:\n            cpu: 100m\n"
             "            memory: 128Mi\n          limits:\n            cpu: 500m\n"
             "            memory: 256Mi\n";
        y += "        readinessProbe:\n          httpGet:\n            path: /ready\n"
             "            port: " +
             port + "\n          periodSeconds: 10\n";
        y += "        livenessProbe:\n          httpGet:\n            path: /live\n"
             "            port: " +
             port + "\n          initialDelaySeconds: 5\n";
        y += "        securityContext:\n          runAsNonRoot: true\n"
             "          readOnlyRootFilesystem: true\n          allowPrivilegeEscalation: false\n";
        y += "        volumeMounts:\n        - name: config\n          mountPath: /etc/" +
             std::string(names[c]) + "\n";
      }
      y += "      volumes:\n      - name: config\n        configMap:\n          name: web-config\n";
      out[v] = y;
    }
    return out;
  }();
  return manifests[variant % 2];
}

awaitable<void> create_namespace(Connection& conn, const std::string& name) {
  json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
  Reply reply = co_await conn.call(http::verb::post, "/api/v1/namespaces", ns.dump());
  expect(reply, 201, "create namespace " + name);
}

}  // namespace apiserver_bench
