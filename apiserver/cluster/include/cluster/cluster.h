// The cluster around the API server: what kube-controller-manager, kube-scheduler and the nodes'
// kubelets do, in process. Every part is an API client (cluster/src/client) whose requests go
// through the server's whole request pipeline under its own user, as on a real cluster; none
// reads or writes the store behind the API's back.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "apiserver/http.h"
#include "common/clock.h"
#include "common/result.h"

namespace cluster {

// Signs a PEM certificate request with the cluster CA for the given certificates.k8s.io usages
// and duration; the certificate as PEM, or why not.
using CertificateSigner = std::function<common::Result<std::string>(
    const std::string& request_pem, const std::vector<std::string>& usages,
    std::chrono::seconds duration)>;

struct ClusterOptions {
  // Simulated nodes to create at start (node-1 ... node-N) when missing. Nodes created later
  // through the API are simulated too.
  int nodes = 3;
  // kube-controller-manager's --controllers: "*" (every controller on by default), "name" or
  // "-name", comma-separated; parsed by parse_controllers.
  std::set<std::string> controllers;
  // How long a simulated container takes from ContainerCreating to Running.
  std::chrono::milliseconds container_start_delay{1000};
  // How long a simulated kubelet takes to stop a deleted pod's containers (at most the pod's
  // grace period) before it removes the pod.
  std::chrono::milliseconds container_stop_delay{1000};
  // How many times faster than real time the CronJob controller's time runs from the cluster's
  // start (1 to 3600): at 60 a "*/5 * * * *" CronJob makes a Job every 5 seconds. Every other
  // part keeps real time.
  double cron_clock_speed = 1;
  // The kubelets' nodeLeaseDurationSeconds: each renews its node's Lease every quarter of it.
  std::chrono::seconds node_lease_duration{40};
  // kube-controller-manager's --node-monitor-grace-period: how long a node's kubelet may say
  // nothing (no lease renewal, no status) before the node lifecycle controller marks the node
  // Unknown and taints it unreachable. Several lease renewals must fit in it, or healthy nodes
  // flap between Ready and Unknown.
  std::chrono::milliseconds node_monitor_grace_period{std::chrono::seconds(50)};
  // --node-monitor-period: how often that controller looks at every node.
  std::chrono::milliseconds node_monitor_period{std::chrono::seconds(5)};
  // --horizontal-pod-autoscaler-sync-period: how often the HPA controller looks at each HPA (the
  // first time one period after the HPA appears).
  std::chrono::milliseconds horizontal_pod_autoscaler_sync_period{std::chrono::seconds(15)};
  // --horizontal-pod-autoscaler-downscale-stabilization: how long a scale down waits for the
  // highest recommendation of that window (HPAs without spec.behavior's scaleDown window).
  std::chrono::seconds horizontal_pod_autoscaler_downscale_stabilization{std::chrono::minutes(5)};
  // The csrsigning controller's CA (kube-controller-manager's --cluster-signing-cert-file and
  // --cluster-signing-key-file); empty: approved requests stay unsigned.
  CertificateSigner sign_certificate;
  // --cluster-signing-duration: the longest certificate it signs.
  std::chrono::seconds cluster_signing_duration{std::chrono::hours(24 * 365)};
  // Timestamps and delays; nullptr for the real clock. Must outlive the cluster.
  const common::Clock* clock = nullptr;
};

// The controllers `--controllers` may name (canonical names, as kube-controller-manager's
// "replicaset-controller"), and which are on for "*".
struct ControllerName {
  std::string name;
  std::string alias;  // the older short name kube-controller-manager still accepts: "replicaset"
  bool on_by_default = true;
};
// Every name --controllers knows: the controllers Cluster runs, then api_server_hosted().
const std::vector<ControllerName>& known_controllers();
// The kube-controller-manager controllers that kube-sandbox runs inside the API server
// (apiserver::InProcessControllers): namespace, serviceaccount, root-ca-cert-publisher,
// serviceaccount-token and clusterrole-aggregation. --controllers turns them on and off too;
// Cluster never runs them.
const std::vector<ControllerName>& api_server_hosted();

// Parses a --controllers value into the set of controllers to run; the error names the unknown
// controller as kube-controller-manager does.
common::Result<std::set<std::string>> parse_controllers(const std::string& spec);

class Cluster {
 public:
  // `handler`: the API server's request pipeline (ApiServer::handle).
  Cluster(std::function<apiserver::http::Response(apiserver::http::Request&)> handler,
          ClusterOptions options);
  ~Cluster();

  // Creates the nodes, lists and starts watching, then starts the workers. Call once the API
  // server is ready.
  void start();
  // Stops every worker and watch; call before the API server goes.
  void stop();

  // True when no controller has work queued or in progress, nor a delayed key due by
  // `horizon` from now (for tests).
  bool idle(std::chrono::milliseconds horizon) const;

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

}  // namespace cluster
