// kube-aggregator inside kube-sandbox: the APIService objects and what acts on them.
//
// - Registration: at start, one local APIService per built-in group/version the server serves
//   (label kube-aggregator.kubernetes.io/automanaged=onstart, upstream's priorities), and one per
//   served version of every CRD (automanaged=true, priorities 1000/100), following CRDs as they
//   come and go, as kube-apiserver's autoregistration and CRD registration controllers do.
// - Availability: local APIServices are Available (Local); a service-backed one is checked as
//   upstream's available-condition controller checks it (availability.h) and its status written,
//   on every change of an APIService, Service, Endpoints or EndpointSlice, every kRecheck, and
//   after a proxied request failed to reach the extension.
// - Proxy: /apis/<group>/<version>[/...] of a service-backed APIService goes to the extension
//   API server through its Service (webhook::resolve_service: Endpoints/EndpointSlices or
//   ExternalName), over TLS checked against spec.caBundle and `<svc>.<ns>.svc` (or not at all
//   with insecureSkipTLSVerify), presenting the front-proxy client certificate, with the
//   identity the pipeline authenticated in X-Remote-* headers (proxy_request.h). Not Available:
//   503 `service unavailable`.
// - Discovery: the extension's APIResourceList, fetched by each check, cached (marked stale when
//   a check fails), merged into /apis (legacy and aggregated) and /apis/<group>; its OpenAPI v3
//   document listed in /openapi/v3 and served from the extension.
//
// Threads: one worker takes keys from a bounded common::WorkQueue (APIService names, kCrdsKey,
// kAllKey); an authorization::ObjectFollower feeds it from the storage watches. serve() runs on
// request threads and never waits for the worker; a call to an extension costs at most its
// timeout.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "aggregator/apiservice.h"
#include "aggregator/discovery_merge.h"
#include "aggregator/proxy_request.h"
#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "authorization/object_follower.h"
#include "common/work_queue.h"
#include "storage/storage.h"
#include "webhook/resolve.h"

namespace apiserver::aggregator {

struct AggregatorOptions {
  // The front-proxy client certificate and key (PEM) presented to extension servers; empty:
  // none (kube-apiserver without --proxy-client-cert-file).
  std::string proxy_client_cert_pem;
  std::string proxy_client_key_pem;
  // A discovery check's bound (upstream: 5 s per attempt).
  std::chrono::milliseconds check_timeout{std::chrono::seconds(5)};
  // How often each service-backed APIService is checked again (upstream's informer resync).
  std::chrono::milliseconds recheck{std::chrono::seconds(30)};
  // A proxied request's bound when it names no ?timeout= (kube-apiserver's --request-timeout),
  // and the largest answer passed on.
  std::chrono::milliseconds proxy_timeout{std::chrono::seconds(60)};
  size_t max_proxied_bytes = 64 * 1024 * 1024;
  // A proxied watch's events waiting for a slow client; past this it is cut off.
  size_t max_buffered_watch_bytes = 16 * 1024 * 1024;
  // The data of kube-system/extension-apiserver-authentication (client-ca-file and the
  // requestheader-* keys), written at start as kube-apiserver writes it.
  std::map<std::string, std::string> authentication;
};

class Aggregator {
 public:
  // Requests the aggregator writes with (APIService create, update, status, delete), made as
  // the server's own privileged user past the pipeline.
  using Client = std::function<http::Response(http::Request&)>;
  // The server's own answer to a request (discovery, OpenAPI) that the aggregator extends.
  using Local = std::function<http::Response(http::Request&)>;

  Aggregator(storage::Storage& storage, std::shared_ptr<registry::Registry> registry, Client client,
             webhook::Lookups lookups, AggregatorOptions options);
  ~Aggregator();
  Aggregator(const Aggregator&) = delete;
  Aggregator& operator=(const Aggregator&) = delete;

  // Writes the local APIServices of the built-in groups and of the stored CRDs on the caller's
  // thread, then follows changes on the worker.
  void start();
  void stop();

  // Answers `request` when it is the aggregation layer's to answer: a proxied group/version,
  // /apis or /apis/<group> when extension groups exist, /openapi/v3 (and its extension
  // entries). `request.user`, `groups` and `extra` are who asks. nullopt: the server's own.
  std::optional<http::Response> serve(http::Request& request, const Local& local);

  // True when serve() would send `request` to an extension API server.
  bool proxies(const http::Request& request) const;

  const common::WorkQueue& queue() const { return queue_; }

 private:
  // What the last check of a service-backed APIService learned.
  struct Fetched {
    std::optional<nlohmann::json> resource_list;
    bool stale = false;
    std::string openapi_v3_url;  // the extension's serverRelativeURL for apis/<g>/<v>
    // The extension's /openapi/v2: its paths under /apis/<g>/<v> and its definitions.
    std::optional<nlohmann::json> openapi_v2;
  };

  void run();
  void on_changes(bool reset, const std::vector<authorization::ObjectChange>& changes);
  void work(const std::string& key);
  void publish_authentication();
  void register_builtin();
  void reconcile_crds();
  void check(const std::string& name);
  // The condition of a service-backed APIService, and what its discovery answered.
  Condition check_remote(const ApiService& service, Fetched& fetched);
  void write_condition(const std::string& name, const Condition& condition);
  // Creates `object` or brings its spec and labels up to date, then marks it Local.
  void ensure_local(const nlohmann::json& object);
  http::Response call(const std::string& method, const std::string& path,
                      const nlohmann::json& body);
  // The target of a request to `service` at `path_and_query`, with its TLS settings.
  common::Result<webhook::Target> target_for(const ApiService& service,
                                             const std::string& path_and_query) const;

  http::Response proxy(http::Request& request, const ApiService& service);
  http::Response proxy_watch(const http::Request& request, const ApiService& service,
                             const webhook::Target& target, const webhook::Request& out);
  std::optional<http::Response> serve_apis(http::Request& request, const Local& local);
  std::optional<http::Response> serve_openapi_v3(http::Request& request, const Local& local);
  // /openapi/v2 with the extensions' paths and definitions merged in (JSON or protobuf).
  std::optional<http::Response> serve_openapi_v2(http::Request& request, const Local& local);
  // Every APIService now, and the extension groups' discovery (under mu_).
  std::vector<ApiService> snapshot_services() const;
  std::map<std::string, ExtensionGroup> extension_groups() const;
  std::optional<ApiService> remote_for(const std::string& group, const std::string& version) const;

  storage::Storage& storage_;
  std::shared_ptr<registry::Registry> registry_;
  Client client_;
  webhook::Lookups lookups_;
  const AggregatorOptions options_;

  mutable std::mutex mu_;                       // protects services_ and fetched_
  std::map<std::string, ApiService> services_;  // every stored APIService, by name
  std::map<std::string, Fetched> fetched_;      // service-backed ones, by name

  common::WorkQueue queue_;
  std::unique_ptr<authorization::ObjectFollower> follower_;
  std::thread thread_;
  std::atomic<bool> started_{false};
};

}  // namespace apiserver::aggregator
