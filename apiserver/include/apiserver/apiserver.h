// The API server: the request pipeline over the store. One call per request (ApiServer::handle),
// made by the server layer on a worker thread.
//
// The pipeline's stages run in order (ApiServer::stages(): request info, authentication, audit,
// authorization, then the handler), inside a barrier, and each request's trace is kept for
// GET /debug/requests. The handler serves /version, /healthz, /livez, /readyz, /metrics,
// discovery, OpenAPI, service-account issuer discovery and the resources of the registry.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "apiserver/audit.h"
#include "apiserver/component_statuses.h"
#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "apiserver/service_accounts.h"
#include "apiserver/snapshots.h"
#include "apiserver/token_file.h"
#include "common/clock.h"
#include "store/store.h"

namespace apiserver {

// A named health check; returns an empty string when healthy, else the reason.
struct HealthCheck {
  std::string name;
  std::function<std::string()> check;
};

// The aggregation layer's settings, as kube-apiserver's flags give them: the front-proxy
// client certificate it presents to extension API servers (--proxy-client-cert-file,
// --proxy-client-key-file) and what the kube-system/extension-apiserver-authentication ConfigMap
// tells extension servers to trust (--client-ca-file, --requestheader-client-ca-file,
// --requestheader-allowed-names, --requestheader-username-headers, --requestheader-group-headers,
// --requestheader-extra-headers-prefix); the requestheader settings also turn on the
// requestheader authenticator of kube-sandbox's own API. The identity always goes out in
// X-Remote-User, X-Remote-Group and X-Remote-Extra-<key>, as upstream's proxy sends it whatever
// the flags say.
struct AggregationConfig {
  std::string proxy_client_cert_pem;
  std::string proxy_client_key_pem;
  std::string client_ca_pem;
  std::string requestheader_client_ca_pem;  // empty: the requestheader keys are not published
  std::vector<std::string> requestheader_allowed_names;
  std::vector<std::string> requestheader_username_headers = {"X-Remote-User"};
  std::vector<std::string> requestheader_group_headers = {"X-Remote-Group"};
  std::vector<std::string> requestheader_extra_headers_prefix = {"X-Remote-Extra-"};
};

// The kube-controller-manager loops that kube-sandbox runs inside the API server (they follow its
// storage directly). kube-apiserver alone runs none of them: its namespaces stay Terminating, new
// namespaces get no default ServiceAccount and no kube-root-ca.crt, and the aggregated ClusterRoles
// (admin, edit, view) stay without rules.
struct InProcessControllers {
  bool namespace_deletion = true;       // namespace-controller
  bool service_accounts = true;         // serviceaccount-controller: `default` per namespace
  bool root_ca_publisher = true;        // root-ca-certificate-publisher-controller
  bool token_secrets = true;            // serviceaccount-token-controller
  bool clusterrole_aggregation = true;  // clusterrole-aggregation-controller
};

struct ApiServerConfig {
  // Bearer tokens the server accepts (parse_token_auth_file reads them from a file).
  TokenMap tokens;
  // Service-account tokens: issuers, keys, API audiences (the --service-account-* flags). They
  // must pass check_service_account_options (the constructor throws otherwise). Without a
  // signing key, TokenRequest is not served and legacy token Secrets stay unfilled.
  ServiceAccountOptions service_accounts;
  registry::RuntimeConfig runtime_config;  // which group/versions are served
  // How often the store is compacted to the revision of one interval ago (0 = never); as
  // kube-apiserver's --etcd-compaction-interval.
  std::chrono::milliseconds compaction_interval{std::chrono::minutes(5)};
  // How long events are kept after their last write (kube-apiserver's --event-ttl); 0 for ever.
  std::chrono::seconds event_ttl{std::chrono::hours(1)};
  // The cluster CA (PEM) published in every namespace as the kube-root-ca.crt ConfigMap; empty
  // for none.
  std::string root_ca_pem;
  // Where named snapshots are kept (<data-dir>/snapshots), served at /admin/snapshots to
  // system:masters; empty for none.
  std::filesystem::path snapshots_dir;
  // Why named snapshots cannot be kept (the store is an etcd cluster's: restoring means replacing
  // every key at one revision, which etcd's API cannot); /admin/snapshots answers it, 400.
  std::string snapshots_refusal;
  // kube-apiserver's --authorization-mode: a comma-separated list of Node, RBAC, AlwaysAllow and
  // AlwaysDeny, evaluated in order after the privileged group system:masters
  // (check_authorization_mode() tells whether a value is one).
  std::string authorization_mode = "Node,RBAC";
  // kube-apiserver's --anonymous-auth: requests without credentials are system:anonymous (true)
  // or refused with a 401 (false).
  bool anonymous_auth = true;
  // kube-apiserver's --enable-admission-plugins and --disable-admission-plugins: the plugins
  // added to and taken from the default-on ones (check_admission_plugins() tells whether they
  // are valid).
  std::vector<std::string> enable_admission_plugins;
  std::vector<std::string> disable_admission_plugins;
  // The audit policy and log (start_audit); null: no audit.
  std::shared_ptr<audit::Auditor> auditor;
  AggregationConfig aggregation;
  // kube-apiserver's --service-cluster-ip-range: where Services' cluster IPs come from; the
  // kubernetes Service takes its first address. check_service_cluster_ip_range() tells whether a
  // value is usable (the constructor throws otherwise).
  std::string service_cluster_ip_range = "10.96.0.0/12";
  InProcessControllers controllers;
  // kube-apiserver's --storage-media-type: how built-in kinds are written to the store,
  // application/json (kube-sandbox's default: etcdctl shows them) or
  // application/vnd.kubernetes.protobuf (kube-apiserver's default). Both are read whatever this
  // says; custom resources are always JSON. check_storage_media_type() tells whether a value is
  // usable (the constructor throws otherwise).
  std::string storage_media_type = "application/json";
  // kube-apiserver's --allow-privileged (process-wide, as upstream's): false refuses containers
  // with securityContext.privileged. kube-apiserver's default is false; kubeadm and kind set true.
  bool allow_privileged = true;
  // The time of timestamps the server writes (creation, deletion, managedFields entries);
  // nullptr for the real clock. Must outlive the server.
  const common::Clock* clock = nullptr;
};

namespace storage {
class Storage;
class Compactor;
}  // namespace storage
namespace registry {
class GenericStore;
}
namespace admission {
struct Services;
class Chain;
}  // namespace admission
namespace endpoints {
struct RequestInfo;
class ResourceHandler;
class OpenApi;
class SnapshotEndpoint;
}  // namespace endpoints
namespace trace {
class TraceLog;
struct RequestTrace;
}  // namespace trace
namespace pipeline {
struct Stage;
}
namespace controllers {
class NamespaceController;
class NamespaceDefaultsController;
class CrdController;
class TokenController;
class ClusterRoleAggregationController;
}  // namespace controllers
namespace aggregator {
class Aggregator;
}
namespace serviceaccount {
class ServiceAccountTokens;
struct OpenIdMetadata;
}  // namespace serviceaccount
namespace authorization {
class PolicyCache;
class NodeGraph;
class NodeAuthorizer;
class Authorizer;
}  // namespace authorization
namespace filters {
class Metrics;
struct UserInfo;
struct RequestLabels;
class TokenTable;
class Authenticator;
}  // namespace filters

class ApiServer {
 public:
  // Throws std::invalid_argument when config.authorization_mode or the admission plugins are
  // not valid.
  ApiServer(store::Store& store, ApiServerConfig config);
  ~ApiServer();

  // Why `mode` is not a valid --authorization-mode, in kube-apiserver's words; nullopt when it is.
  static std::optional<std::string> check_authorization_mode(const std::string& mode);
  // Why `type` is not a --storage-media-type kube-sandbox writes; nullopt when it is.
  static std::optional<std::string> check_storage_media_type(const std::string& type);
  // Why `cidr` is not a usable --service-cluster-ip-range; nullopt when it is.
  static std::optional<std::string> check_service_cluster_ip_range(const std::string& cidr);
  // Why --enable-admission-plugins `enable` and --disable-admission-plugins `disable` are not
  // valid, in kube-apiserver's words; nullopt when they are.
  static std::optional<std::string> check_admission_plugins(
      const std::vector<std::string>& enable, const std::vector<std::string>& disable);

  // Creates what a fresh cluster has when missing: namespaces default, kube-system, kube-public,
  // kube-node-lease, and the kubernetes service (10.96.0.1:443 -> `secure_port`); reconciles the
  // bootstrap RBAC policy and starts the authorizers' watches; renders the service-account issuer
  // discovery documents for a server reached at `external_host`:`secure_port`. Call once, before
  // readiness.
  void bootstrap(int secure_port = 6443, const std::string& external_host = "127.0.0.1");

  // Serves one request through the whole filter chain. Callers in process (tests, fixtures) may
  // call it directly: it authenticates as the server does and never throws.
  http::Response handle(http::Request& request);
  // The filters that need only the request's header (authentication, and anonymous callers
  // kept to the public paths), for the server layer to run before reading a body
  // (ServerOptions::admit): the 401 or 403 answer, or nullopt to go on. handle() runs the same.
  std::optional<http::Response> admit(const http::Request& request) const;
  // Requests that never block and take microseconds (reading one object, health, version): the
  // server layer may answer them on its network thread (ServerOptions::run_inline).
  static bool answers_quickly(const http::Request& request);
  // answers_quickly(), but never for a request the aggregation layer sends to an extension API
  // server (which may take its whole timeout).
  bool runs_inline(const http::Request& request) const;
  // kube-apiserver's long-running requests: watches, and the attach, exec, log, portforward and
  // proxy subresources (ServerOptions::long_running).
  static bool long_running(const http::Request& request);

  // Readiness: false until start-up work (bootstrap objects, fixtures) is done, and again once
  // shutdown begins.
  void set_ready(bool ready) { ready_ = ready; }
  // componentstatuses (`kubectl get cs`): "scheduler" and "controller-manager" are probed at
  // https://127.0.0.1:10259/healthz and https://127.0.0.1:10257/healthz as kube-apiserver
  // probes them, unless this process runs them: while `running` says so, they are healthy
  // ("ok"). etcd-0 is the store's health. Set before requests are served.
  void set_in_process_component(const std::string& name, std::function<bool()> running);
  void begin_shutdown();
  // True when no controller has work queued, in progress or scheduled (for tests).
  bool controllers_idle() const;
  // Waits up to `timeout` until no controller has work queued or in progress, nor a retry due
  // within `within` from now; false on timeout (for tests: they wait on this, not a sleep).
  bool wait_controllers_idle(std::chrono::milliseconds within,
                             std::chrono::milliseconds timeout) const;

  // Restores a named snapshot into the running server (POST /admin/snapshots/NAME/restore):
  // API writes wait meanwhile; the store's contents are replaced (store::Store::replace_all);
  // then what the server derives from stored objects is rebuilt from the store: watch caches
  // (every watch ends with 410 Expired), service cluster IPs and node ports, the namespaces
  // being deleted. The namespace defaults controller relists on its own once its watches end.
  snapshots::Error restore_snapshot(const std::string& name, snapshots::Restored& out);

 private:
  // The request pipeline's stages, in order; the last is the handler (route()).
  std::vector<pipeline::Stage> stages();
  // A request's trace: begun before the stages run, kept (numbered, logged at -v 2, added to the
  // log /debug/requests serves) once the request is answered.
  static trace::RequestTrace begin_trace(const http::Request& request);
  void keep_trace(trace::RequestTrace trace, const http::Request& request, int status,
                  std::chrono::nanoseconds elapsed) const;
  // `info`: the request info stage's reading of the request.
  std::optional<filters::RequestLabels> metric_labels(
      const http::Request& request, const std::optional<endpoints::RequestInfo>& info) const;
  void log_request(const http::Request& request, const std::string& verb, int status,
                   std::chrono::nanoseconds elapsed) const;
  // `info`: the request info stage's reading of the request, when it ran (else route reads it).
  // The aggregation layer answers first (a proxied group/version, merged discovery); the rest
  // is route_local()'s.
  http::Response route(http::Request& request, const endpoints::RequestInfo* info = nullptr);
  http::Response route_local(http::Request& request, const endpoints::RequestInfo* info);
  http::Response health(const std::string& endpoint, const std::string& check_path,
                        const http::Request& request, const std::vector<HealthCheck>& checks);
  // componentstatuses' components (component_health.cpp).
  std::vector<ComponentHealth> component_health() const;
  // The store's health: empty when a read works, else the read's error (the etcd checks).
  std::string store_health() const;
  // Whether the namespace defaults controller has anything to do.
  bool namespace_defaults_running() const {
    return config_.controllers.service_accounts || config_.controllers.root_ca_publisher;
  }

  store::Store& store_;
  ApiServerConfig config_;
  std::map<std::string, std::function<bool()>> in_process_components_;
  std::shared_ptr<registry::Registry> registry_;
  std::unique_ptr<storage::Storage> storage_;
  std::unique_ptr<storage::Compactor> compactor_;
  std::unique_ptr<controllers::NamespaceController> namespaces_;
  std::unique_ptr<registry::GenericStore> generic_store_;
  std::unique_ptr<filters::TokenTable> tokens_;
  std::unique_ptr<serviceaccount::ServiceAccountTokens> service_accounts_;
  std::unique_ptr<filters::Authenticator> authenticator_;
  // The authorizers and what they read (the RBAC objects, the node graph), from storage watches.
  std::unique_ptr<authorization::PolicyCache> policy_;
  std::unique_ptr<authorization::NodeGraph> node_graph_;
  std::unique_ptr<authorization::NodeAuthorizer> node_authorizer_;
  std::unique_ptr<authorization::Authorizer> authorizer_;
  std::unique_ptr<endpoints::ResourceHandler> resources_;
  std::unique_ptr<admission::Services> admission_services_;
  std::unique_ptr<admission::Chain> admission_;
  std::unique_ptr<filters::Metrics> metrics_;
  std::unique_ptr<endpoints::OpenApi> openapi_;
  std::unique_ptr<endpoints::SnapshotEndpoint> snapshots_;
  std::unique_ptr<trace::TraceLog> traces_;
  std::vector<pipeline::Stage> stages_;
  // Held shared by every mutating API request and exclusively by restore_snapshot, so that no
  // write is half done (a service's cluster IP taken but the service not yet stored) while the
  // store's contents are replaced and the allocations rebuilt from them.
  std::shared_mutex writes_mu_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> bootstrapped_{false};  // bootstrap() is done
  std::atomic<bool> shutting_down_{false};
  std::vector<HealthCheck> live_checks_;
  std::vector<HealthCheck> ready_checks_;
  // The issuer discovery documents, rendered by bootstrap() (null: not served).
  mutable std::mutex discovery_mu_;
  std::shared_ptr<const serviceaccount::OpenIdMetadata> discovery_;
  // Last: they call into everything above while they run.
  std::unique_ptr<controllers::CrdController> crds_;
  std::unique_ptr<controllers::NamespaceDefaultsController> namespace_defaults_;
  std::unique_ptr<controllers::ClusterRoleAggregationController> aggregation_;
  std::unique_ptr<controllers::TokenController> token_controller_;  // null without a signing key
  std::unique_ptr<aggregator::Aggregator> aggregator_;              // kube-aggregator's work
};

}  // namespace apiserver
