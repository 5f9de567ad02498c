#include "cluster_flags.h"

#include <charconv>
#include <utility>

#include "apiserver/certificate_authority.h"
#include "apiserver/http.h"

namespace sandbox {
namespace {

constexpr int kDefaultNodes = 3;
constexpr int kMostNodes = 200;
constexpr double kFastestCronClock = 3600;
constexpr int kLongestLease = 3600;

common::Result<std::chrono::milliseconds> duration_flag(const ParsedFlags& flags,
                                                        const std::string& name,
                                                        std::chrono::milliseconds fallback) {
  if (!flags.has(name)) {
    return fallback;
  }
  auto parsed = apiserver::http::parse_duration(flags.get(name));
  if (!parsed || parsed->count() < 0) {
    return common::Result<std::chrono::milliseconds>::failure(
        "--" + name + " must be a duration such as 500ms or 2s, got \"" + flags.get(name) + "\"");
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(*parsed);
}

// An integer flag from `least` to `most`.
common::Result<int> int_flag(const ParsedFlags& flags, const std::string& name, int least, int most,
                             int fallback) {
  if (!flags.has(name)) {
    return fallback;
  }
  const std::string text = flags.get(name);
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < least ||
      value > most) {
    return common::Result<int>::failure("--" + name + " must be a number from " +
                                        std::to_string(least) + " to " + std::to_string(most) +
                                        ", got \"" + text + "\"");
  }
  return value;
}

}  // namespace

std::vector<FlagSpec> cluster_flags() {
  return {
      {"nodes", "", true, "N",
       "simulated nodes to run (default 3; 0 runs none: a bare API server without kubelets)"},
      {"controllers", "", true, "LIST",
       "controllers to run, as kube-controller-manager's: * (all), NAME, -NAME (default *)"},
      {"container-start-delay", "", true, "DURATION",
       "how long a simulated container takes to start (default 1s)"},
      {"container-stop-delay", "", true, "DURATION",
       "how long a deleted pod's simulated containers take to stop (default 1s)"},
      {"cron-clock-speed", "", true, "N",
       "run the CronJob controller's clock N times faster than real time, 1 to 3600 (default 1)"},
      {"node-lease-duration-seconds", "", true, "N",
       "the simulated kubelets' lease duration, 1 to 3600; each renews its lease every quarter "
       "of it (default 40)"},
      {"node-monitor-grace-period", "", true, "DURATION",
       "how long a node's kubelet may be silent before its node is marked Unknown and tainted "
       "unreachable (default 50s)"},
      {"node-monitor-period", "", true, "DURATION",
       "how often the node lifecycle controller looks at the nodes (default 5s)"},
      {"horizontal-pod-autoscaler-sync-period", "", true, "DURATION",
       "how often the HPA controller looks at each HPA (default 15s)"},
      {"horizontal-pod-autoscaler-downscale-stabilization", "", true, "DURATION",
       "how long an HPA's scale down waits for the highest recommendation of that window "
       "(default 5m)"},
      {"cluster-signing-duration", "", true, "DURATION",
       "the longest client certificate the CSR signer issues; shorter spec.expirationSeconds "
       "are honoured, down to 10m (default 8760h)"},
  };
}

common::Result<cluster::ClusterOptions> cluster_options(const ParsedFlags& flags) {
  using Failure = common::Result<cluster::ClusterOptions>;
  cluster::ClusterOptions options;
  auto nodes = int_flag(flags, "nodes", 0, kMostNodes, kDefaultNodes);
  if (!nodes) {
    return Failure::failure(nodes.error());
  }
  options.nodes = *nodes;
  auto controllers = cluster::parse_controllers(flags.get("controllers", "*"));
  if (!controllers) {
    return Failure::failure("--controllers: " + controllers.error());
  }
  options.controllers = *controllers;
  auto start = duration_flag(flags, "container-start-delay", options.container_start_delay);
  if (!start) {
    return Failure::failure(start.error());
  }
  options.container_start_delay = *start;
  auto stop = duration_flag(flags, "container-stop-delay", options.container_stop_delay);
  if (!stop) {
    return Failure::failure(stop.error());
  }
  options.container_stop_delay = *stop;
  auto lease = int_flag(flags, "node-lease-duration-seconds", 1, kLongestLease,
                        static_cast<int>(options.node_lease_duration.count()));
  if (!lease) {
    return Failure::failure(lease.error());
  }
  options.node_lease_duration = std::chrono::seconds(*lease);
  for (auto [name, value] :
       {std::pair{"node-monitor-grace-period", &options.node_monitor_grace_period},
        std::pair{"node-monitor-period", &options.node_monitor_period},
        std::pair{"horizontal-pod-autoscaler-sync-period",
                  &options.horizontal_pod_autoscaler_sync_period}}) {
    auto parsed = duration_flag(flags, name, *value);
    if (!parsed) {
      return Failure::failure(parsed.error());
    }
    if (parsed->count() <= 0) {
      return Failure::failure(std::string("--") + name + " must be more than 0, got \"" +
                              flags.get(name) + "\"");
    }
    *value = *parsed;
  }
  // 0 is allowed: scale downs then follow the metrics at once.
  auto stabilization = duration_flag(flags, "horizontal-pod-autoscaler-downscale-stabilization",
                                     options.horizontal_pod_autoscaler_downscale_stabilization);
  if (!stabilization) {
    return Failure::failure(stabilization.error());
  }
  options.horizontal_pod_autoscaler_downscale_stabilization =
      std::chrono::duration_cast<std::chrono::seconds>(*stabilization);
  auto signing = duration_flag(flags, "cluster-signing-duration", options.cluster_signing_duration);
  if (!signing) {
    return Failure::failure(signing.error());
  }
  if (*signing < std::chrono::minutes(10)) {
    return Failure::failure("--cluster-signing-duration must be at least 10m, got \"" +
                            flags.get("cluster-signing-duration") + "\"");
  }
  options.cluster_signing_duration = std::chrono::duration_cast<std::chrono::seconds>(*signing);
  if (flags.has("cron-clock-speed")) {
    const std::string text = flags.get("cron-clock-speed");
    double speed = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), speed);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !(speed >= 1) ||
        speed > kFastestCronClock) {
      return Failure::failure("--cron-clock-speed must be a number from 1 to 3600, got \"" + text +
                              "\"");
    }
    options.cron_clock_speed = speed;
  }
  return options;
}

void add_certificate_signer(cluster::ClusterOptions& options, const apiserver::pki::Pki& pki) {
  options.sign_certificate = [ca = pki.ca_cert_pem, key = pki.ca_key_pem](
                                 const std::string& request, const std::vector<std::string>& usages,
                                 std::chrono::seconds duration) {
    apiserver::pki::SigningPolicy policy;
    policy.usages = usages;
    policy.ttl = duration;
    return apiserver::pki::sign_certificate_request(ca, key, request, policy);
  };
}

apiserver::InProcessControllers in_process_controllers(const cluster::ClusterOptions& options) {
  auto on = [&](const char* name) { return options.controllers.count(name) != 0; };
  apiserver::InProcessControllers out;
  out.namespace_deletion = on("namespace-controller");
  out.service_accounts = on("serviceaccount-controller");
  out.root_ca_publisher = on("root-ca-certificate-publisher-controller");
  out.token_secrets = on("serviceaccount-token-controller");
  out.clusterrole_aggregation = on("clusterrole-aggregation-controller");
  return out;
}

}  // namespace sandbox
