// ClusterIP and NodePort allocation for Services, as kube-apiserver v1.32 does it with its
// default (bitmap) allocators: one service CIDR (10.96.0.0/12 by default, IPv4 single-stack) and
// one node-port range (30000-32767 by default).
//
// Each range is split in two bands. Dynamic allocation picks a random free value in the upper
// band first and only falls back to the lower band when the upper one is full, so that the lower
// band stays free for values users ask for (KEP-3070 / KEP-3668). The lower band holds
// min(max(16, size/16), 256) addresses of the CIDR and min(max(16, size/32), 128) ports:
//   10.96.0.0/12: usable offsets 0..1048573 (10.96.0.1 .. 10.111.255.254), lower band
//                 10.96.0.1 .. 10.96.1.0 (256 addresses; 10.96.0.1 is the kubernetes service's)
//   30000-32767:  2768 ports, lower band 30000 .. 30085 (86 ports)
//
// Independent of storage: the caller allocates before it writes a service, releases after it
// deletes one (or when the write fails), and rebuilds from the stored services at start-up.
//
// Thread-safety: every member may be called from any thread; one mutex guards all state.
#pragma once

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/result.h"
#include "registry/objects.h"

namespace apiserver::registry {

struct ServiceIpOptions {
  std::string service_cidr = "10.96.0.0/12";  // IPv4 only
  int node_port_base = 30000;
  int node_port_size = 2768;  // 30000-32767
  uint64_t seed = 0;          // 0: seed from std::random_device (tests pass a fixed seed)
};

class ServiceIpAllocator {
 public:
  // Throws std::invalid_argument on a malformed CIDR or range (a start-up error).
  explicit ServiceIpAllocator(ServiceIpOptions options = {});

  // The first usable address of an IPv4 service CIDR (the kubernetes service's cluster IP), or
  // kube-apiserver's complaint about the --service-cluster-ip-range value.
  static common::Result<std::string> first_address(const std::string& cidr);

  // ---- Whole-service operations (what the Service registry does) ----

  // Fills spec.clusterIP/clusterIPs and the node ports a new, already defaulted service needs:
  // a cluster IP unless ExternalName or headless ("None"); a nodePort for every port of a
  // NodePort service or a LoadBalancer with allocateLoadBalancerNodePorts != false (ports that
  // share a port number share the node port); healthCheckNodePort for a LoadBalancer with
  // externalTrafficPolicy Local. Requested values are reserved as given. On any error nothing
  // stays allocated and the field errors carry upstream's texts, e.g.
  //   spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10:
  //     provided IP is already allocated
  //   spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated
  // A full range returns one error with reason "InternalError" and field "" (upstream: 500).
  std::vector<FieldError> allocate_service(nlohmann::json& service);

  // An update from `old_service` (stored) to `service` (new, defaulted): keeps the old cluster
  // IPs and node ports when the new object omits them (node ports are matched by port name),
  // allocates what a type change adds and releases what it drops. All-or-nothing like
  // allocate_service.
  std::vector<FieldError> update_service(const nlohmann::json& old_service,
                                         nlohmann::json& service);

  // Frees everything `service` holds (after a delete, or to undo allocate_service).
  void release_service(const nlohmann::json& service);

  // Forgets all allocations and marks those of `services` (the stored objects). Values outside
  // the ranges are ignored, as upstream's repair loop reports rather than holds them.
  void rebuild(const std::vector<nlohmann::json>& services);

  // ---- Single values ----

  // A free cluster IP, or std::nullopt when the CIDR is full.
  std::optional<std::string> allocate_next_ip();
  // Reserves `ip`; empty on success, else upstream's reason ("provided IP is already
  // allocated", "the provided IP (x) is not in the valid range. The range of valid IPs is ...").
  std::string allocate_ip(const std::string& ip);
  void release_ip(const std::string& ip);
  bool ip_allocated(const std::string& ip) const;

  std::optional<int> allocate_next_node_port();
  // Empty on success, else "provided port is already allocated" or "provided port is not in
  // the valid range. The range of valid ports is 30000-32767".
  std::string allocate_node_port(int port);
  void release_node_port(int port);
  bool node_port_allocated(int port) const;

  size_t allocated_ip_count() const;
  size_t allocated_node_port_count() const;

 private:
  // One contiguous range of small integers with the two-band random scan.
  struct Bitmap {
    std::vector<bool> used;
    size_t count = 0;
    size_t offset = 0;  // size of the lower (static) band
  };
  static std::optional<size_t> next_free_locked(Bitmap& bitmap, std::mt19937_64& rng);

  std::optional<size_t> ip_index(const std::string& ip) const;
  std::string index_ip(size_t index) const;
  std::string allocate_ip_locked(const std::string& ip);
  std::string allocate_node_port_locked(int port);
  std::vector<FieldError> allocate_service_locked(nlohmann::json& service);
  void release_service_locked(const nlohmann::json& service);
  // Marks what a stored service holds; values already taken or out of range are skipped.
  void mark_service_locked(const nlohmann::json& service);

  const ServiceIpOptions options_;
  uint32_t base_ = 0;  // first usable address (network + 1)
  std::string cidr_text_;

  mutable std::mutex mu_;  // protects ips_, ports_, rng_
  Bitmap ips_;
  Bitmap ports_;
  std::mt19937_64 rng_;
};

}  // namespace apiserver::registry
