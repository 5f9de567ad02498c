// serve's cluster flags (sandbox/src/cluster_flags): kube-controller-manager's node monitoring
// durations and the kubelets' lease duration reach ClusterOptions, and bad values are usage
// errors that name the flag.
#include <catch2/catch.hpp>

#include "cluster_flags.h"

using namespace std::chrono_literals;

namespace {

common::Result<cluster::ClusterOptions> parse(const std::vector<std::string>& args) {
  auto flags = sandbox::FlagSet(sandbox::cluster_flags()).parse(args);
  REQUIRE(flags);
  return sandbox::cluster_options(*flags);
}

}  // namespace

TEST_CASE("the node monitoring flags default to kube-controller-manager's and the kubelet's",
          "[cli][cluster]") {
  auto options = parse({});
  REQUIRE(options);
  CHECK(options->node_monitor_grace_period == 50s);
  CHECK(options->node_monitor_period == 5s);
  CHECK(options->node_lease_duration == 40s);
}

TEST_CASE("the node monitoring flags take Go durations and the lease duration seconds",
          "[cli][cluster]") {
  auto options = parse({"--node-monitor-grace-period=4s", "--node-monitor-period", "500ms",
                        "--node-lease-duration-seconds=2"});
  REQUIRE(options);
  CHECK(options->node_monitor_grace_period == 4s);
  CHECK(options->node_monitor_period == 500ms);
  CHECK(options->node_lease_duration == 2s);
  auto minutes = parse({"--node-monitor-grace-period=1m30s"});
  REQUIRE(minutes);
  CHECK(minutes->node_monitor_grace_period == 90s);
}

TEST_CASE("bad node monitoring values are usage errors naming the flag", "[cli][cluster]") {
  struct Row {
    std::string arg;
    std::string error;
  };
  const std::vector<Row> rows = {
      {"--node-monitor-grace-period=40",
       "--node-monitor-grace-period must be a duration such as "
       "500ms or 2s, got \"40\""},
      {"--node-monitor-grace-period=0s",
       "--node-monitor-grace-period must be more than 0, got \"0s\""},
      {"--node-monitor-period=-1s",
       "--node-monitor-period must be a duration such as 500ms or 2s, got \"-1s\""},
      {"--node-lease-duration-seconds=0",
       "--node-lease-duration-seconds must be a number from 1 to 3600, got \"0\""},
      {"--node-lease-duration-seconds=4s",
       "--node-lease-duration-seconds must be a number from 1 to 3600, got \"4s\""},
  };
  for (const Row& row : rows) {
    CAPTURE(row.arg);
    auto options = parse({row.arg});
    REQUIRE_FALSE(options);
    CHECK(options.error() == row.error);
  }
}

TEST_CASE("the --controllers list reaches the loops the API server hosts, by name or alias",
          "[cli][cluster]") {
  auto all = parse({});
  REQUIRE(all);
  auto hosted = sandbox::in_process_controllers(*all);
  CHECK(hosted.namespace_deletion);
  CHECK(hosted.service_accounts);
  CHECK(hosted.root_ca_publisher);
  CHECK(hosted.token_secrets);
  CHECK(hosted.clusterrole_aggregation);

  auto some = parse({"--controllers=*,-namespace,-root-ca-certificate-publisher-controller"});
  REQUIRE(some);
  hosted = sandbox::in_process_controllers(*some);
  CHECK_FALSE(hosted.namespace_deletion);
  CHECK(hosted.service_accounts);
  CHECK_FALSE(hosted.root_ca_publisher);
  CHECK(hosted.clusterrole_aggregation);
  CHECK(some->controllers.count("deployment-controller") == 1);

  auto none = parse({"--controllers="});
  REQUIRE(none);
  CHECK(none->controllers.empty());
  hosted = sandbox::in_process_controllers(*none);
  CHECK_FALSE(hosted.service_accounts);
  CHECK_FALSE(hosted.token_secrets);
  CHECK_FALSE(hosted.clusterrole_aggregation);
}

TEST_CASE("the HPA controller's flags default to kube-controller-manager's and take Go durations",
          "[cli][cluster]") {
  auto defaults = parse({});
  REQUIRE(defaults);
  CHECK(defaults->horizontal_pod_autoscaler_sync_period == 15s);
  CHECK(defaults->horizontal_pod_autoscaler_downscale_stabilization == 5min);
  auto set = parse({"--horizontal-pod-autoscaler-sync-period=500ms",
                    "--horizontal-pod-autoscaler-downscale-stabilization", "0s"});
  REQUIRE(set);
  CHECK(set->horizontal_pod_autoscaler_sync_period == 500ms);
  CHECK(set->horizontal_pod_autoscaler_downscale_stabilization == 0s);
  auto negative = parse({"--horizontal-pod-autoscaler-downscale-stabilization=-1s"});
  REQUIRE_FALSE(negative);
  CHECK(negative.error() ==
        "--horizontal-pod-autoscaler-downscale-stabilization must be a duration such as 500ms or "
        "2s, got \"-1s\"");
}
