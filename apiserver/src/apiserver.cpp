#include "apiserver/apiserver.h"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

#include "admission/chain.h"
#include "aggregator/aggregator.h"
#include "apiserver/log.h"
#include "apiserver/version.h"
#include "audit/auditor.h"
#include "authorization/authorizer.h"
#include "authorization/bootstrap_policy.h"
#include "authorization/node_authorizer.h"
#include "authorization/node_graph.h"
#include "authorization/policy_cache.h"
#include "controllers/clusterrole_aggregation.h"
#include "controllers/crd_controller.h"
#include "controllers/namespace_controller.h"
#include "controllers/namespace_defaults.h"
#include "controllers/rbac_bootstrap.h"
#include "controllers/token_controller.h"
#include "endpoints/accept.h"
#include "endpoints/debug_requests.h"
#include "endpoints/discovery.h"
#include "endpoints/issuer_discovery.h"
#include "endpoints/openapi.h"
#include "endpoints/patch/json_patch.h"
#include "endpoints/resources.h"
#include "endpoints/snapshots.h"
#include "endpoints/yaml_json.h"
#include "errors/status.h"
#include "filters/authentication.h"
#include "filters/authenticator.h"
#include "filters/metrics.h"
#include "pipeline/pipeline.h"
#include "pipeline/stages.h"
#include "registry/generic/store.h"
#include "registry/kinds/pod_spec.h"
#include "registry/service_ips.h"
#include "server/barrier.h"
#include "serviceaccount/service_account_tokens.h"
#include "storage/compactor.h"
#include "storage/storage.h"
#include "trace/request_trace.h"

namespace apiserver {
namespace {

http::Response text(int code, std::string body) {
  http::Response r;
  r.status = code;
  r.set_header("Content-Type", "text/plain; charset=utf-8");
  r.set_header("X-Content-Type-Options", "nosniff");
  r.body = std::move(body);
  return r;
}

// The service-account authenticators' reads: the stored object of a core/v1 resource.
serviceaccount::ObjectGetter object_getter(const registry::Registry& registry,
                                           storage::Storage& storage) {
  return [&registry, &storage](
             const std::string& resource, const std::string& ns,
             const std::string& name) -> common::Result<std::optional<nlohmann::json>> {
    const registry::Resource* r = registry.snapshot()->find("", "v1", resource);
    if (r == nullptr) {
      return std::optional<nlohmann::json>();
    }
    storage::Object stored;
    if (auto error = storage.get(r->storage_key(ns, name), stored)) {
      if (error.kind == storage::ErrorKind::NotFound) {
        return std::optional<nlohmann::json>();
      }
      return common::Result<std::optional<nlohmann::json>>::failure(error.message);
    }
    nlohmann::json object = nlohmann::json::parse(stored.value, nullptr, false);
    if (!object.is_object()) {
      return common::Result<std::optional<nlohmann::json>>::failure(resource + " does not decode");
    }
    return std::optional<nlohmann::json>(std::move(object));
  };
}

http::Response json(int code, const nlohmann::json& doc) {
  http::Response r;
  r.status = code;
  r.set_header("Content-Type", "application/json");
  r.body = doc.dump();
  return r;
}

std::vector<std::string> admission_plugins_or_throw(const std::vector<std::string>& enable,
                                                    const std::vector<std::string>& disable) {
  auto names = admission::enabled_plugins({enable, disable});
  if (!names) {
    throw std::invalid_argument(names.error());
  }
  return *names;
}

std::vector<authorization::Mode> modes_or_throw(const std::string& text) {
  auto modes = authorization::parse_modes(text);
  if (!modes) {
    throw std::invalid_argument(modes.error());
  }
  return *modes;
}

}  // namespace

std::optional<std::string> ApiServer::check_admission_plugins(
    const std::vector<std::string>& enable, const std::vector<std::string>& disable) {
  auto names = admission::enabled_plugins({enable, disable});
  if (!names) {
    return names.error();
  }
  return std::nullopt;
}

std::optional<std::string> ApiServer::check_authorization_mode(const std::string& mode) {
  auto modes = authorization::parse_modes(mode);
  if (!modes) {
    return modes.error();
  }
  return std::nullopt;
}

std::optional<std::string> ApiServer::check_storage_media_type(const std::string& type) {
  if (type == "application/json" || type == "application/vnd.kubernetes.protobuf") {
    return std::nullopt;
  }
  return "--storage-media-type \"" + type +
         "\" invalid, allowed values: application/json, application/vnd.kubernetes.protobuf";
}

std::optional<std::string> ApiServer::check_service_cluster_ip_range(const std::string& cidr) {
  auto first = registry::ServiceIpAllocator::first_address(cidr);
  if (!first) {
    return first.error();
  }
  return std::nullopt;
}

ApiServer::ApiServer(store::Store& store, ApiServerConfig config)
    : store_(store),
      config_(std::move(config)),
      registry_(registry::Registry::builtin(config_.runtime_config)),
      storage_(std::make_unique<storage::Storage>(store)),
      compactor_(std::make_unique<storage::Compactor>(store, config_.compaction_interval)),
      namespaces_(std::make_unique<controllers::NamespaceController>(
          registry_, *storage_, [this](http::Request& r) { return handle(r); })),
      generic_store_(std::make_unique<registry::GenericStore>(
          *storage_, config_.clock != nullptr ? *config_.clock : common::Clock::real(),
          [this](const registry::Resource& r, const std::string& name) {
            if (config_.controllers.namespace_deletion) {
              namespaces_->marked_for_deletion(r, name);
            }
          },
          registry::WriteHooksOptions{config_.service_cluster_ip_range})),
      tokens_(std::make_unique<filters::TokenTable>()),
      service_accounts_(std::make_unique<serviceaccount::ServiceAccountTokens>(
          config_.service_accounts, object_getter(*registry_, *storage_),
          config_.clock != nullptr ? *config_.clock : common::Clock::real(),
          [this](const std::string& ns, const std::string& name, const std::string&) {
            if (token_controller_) {
              token_controller_->legacy_token_used(ns, name);
            }
          })),
      authenticator_(
          std::make_unique<filters::Authenticator>(*tokens_, service_accounts_->api_audiences())),
      policy_(std::make_unique<authorization::PolicyCache>(*storage_)),
      node_graph_(std::make_unique<authorization::NodeGraph>(*storage_)),
      node_authorizer_(std::make_unique<authorization::NodeAuthorizer>(
          *node_graph_, authorization::node_rules())),
      authorizer_(std::make_unique<authorization::Authorizer>(
          modes_or_throw(config_.authorization_mode), *policy_, *node_authorizer_)),
      resources_(std::make_unique<endpoints::ResourceHandler>(
          *storage_, *generic_store_, *authenticator_, *authorizer_, *policy_,
          service_accounts_.get(),
          config_.clock != nullptr ? *config_.clock : common::Clock::real())),
      admission_services_(std::make_unique<admission::Services>(
          admission::Services{*storage_, [this] { return registry_->snapshot(); }, *authorizer_,
                              config_.clock != nullptr ? *config_.clock : common::Clock::real()})),
      admission_(std::make_unique<admission::Chain>(
          *admission_services_, admission_plugins_or_throw(config_.enable_admission_plugins,
                                                           config_.disable_admission_plugins))),
      metrics_(std::make_unique<filters::Metrics>()),
      openapi_(std::make_unique<endpoints::OpenApi>()),
      snapshots_(std::make_unique<endpoints::SnapshotEndpoint>(
          store, config_.snapshots_dir,
          [this](const std::string& name, snapshots::Restored& out) {
            return restore_snapshot(name, out);
          },
          config_.snapshots_refusal)),
      traces_(std::make_unique<trace::TraceLog>()),
      stages_(stages()),
      crds_(std::make_unique<controllers::CrdController>(
          registry_, *storage_, [this](http::Request& r) { return route(r); })),
      namespace_defaults_(std::make_unique<controllers::NamespaceDefaultsController>(
          *storage_, [this](http::Request& r) { return route(r); },
          config_.controllers.root_ca_publisher ? config_.root_ca_pem : std::string(),
          config_.controllers.service_accounts)) {
  // Made only when it runs: it takes work from the policy cache from the start.
  if (config_.controllers.clusterrole_aggregation) {
    aggregation_ = std::make_unique<controllers::ClusterRoleAggregationController>(
        *policy_, [this](http::Request& r) { return handle(r); });
  }
  admission_services_->metrics = metrics_.get();
  admission_services_->json_patch =
      [](const nlohmann::json& document,
         const nlohmann::json& patch) -> common::Result<nlohmann::json> {
    auto patched = endpoints::patch::apply_json_patch(document, patch);
    if (auto* error = std::get_if<endpoints::patch::PatchError>(&patched)) {
      return common::Result<nlohmann::json>::failure(error->detail);
    }
    return std::get<nlohmann::json>(std::move(patched));
  };
  resources_->set_admission(admission_.get());
  resources_->set_component_statuses([this] { return component_health(); });
  if (auto problem = check_storage_media_type(config_.storage_media_type)) {
    throw std::invalid_argument(*problem);
  }
  storage_->set_media_type(config_.storage_media_type == "application/json"
                               ? storage::MediaType::Json
                               : storage::MediaType::Protobuf);
  registry::kinds::set_allow_privileged(config_.allow_privileged);
  for (const auto& [token, user] : config_.tokens) {
    filters::UserInfo info;
    info.name = user.first;
    info.groups = user.second;
    tokens_->set(token, std::move(info));
  }
  // kube-apiserver's order: the static tokens, then the legacy and the bound service-account
  // tokens.
  authenticator_->set_anonymous(config_.anonymous_auth);
  if (const auto& a = config_.aggregation; !a.requestheader_client_ca_pem.empty()) {
    authenticator_->set_request_header(
        {a.requestheader_allowed_names, a.requestheader_username_headers,
         a.requestheader_group_headers, a.requestheader_extra_headers_prefix});
  }
  authenticator_->add(service_accounts_->legacy_authenticator());
  authenticator_->add(service_accounts_->bound_authenticator());
  aggregator::AggregatorOptions aggregation;
  aggregation.proxy_client_cert_pem = config_.aggregation.proxy_client_cert_pem;
  aggregation.proxy_client_key_pem = config_.aggregation.proxy_client_key_pem;
  {
    const auto& a = config_.aggregation;
    if (!a.client_ca_pem.empty()) {
      aggregation.authentication["client-ca-file"] = a.client_ca_pem;
    }
    if (!a.requestheader_client_ca_pem.empty()) {
      aggregation.authentication["requestheader-client-ca-file"] = a.requestheader_client_ca_pem;
      for (const auto& [key, list] :
           {std::pair{"requestheader-allowed-names", &a.requestheader_allowed_names},
            std::pair{"requestheader-username-headers", &a.requestheader_username_headers},
            std::pair{"requestheader-group-headers", &a.requestheader_group_headers},
            std::pair{"requestheader-extra-headers-prefix",
                      &a.requestheader_extra_headers_prefix}}) {
        aggregation.authentication[key] = nlohmann::json(*list).dump();
      }
    }
  }
  const admission::Services& lookups = *admission_services_;
  aggregator_ = std::make_unique<aggregator::Aggregator>(
      *storage_, registry_, [this](http::Request& r) { return route(r); },
      webhook::Lookups{
          [&lookups](const std::string& group, const std::string& resource, const std::string& ns,
                     const std::string& name) { return lookups.get(group, resource, ns, name); },
          [&lookups](const std::string& group, const std::string& resource, const std::string& ns) {
            return lookups.list(group, resource, ns);
          }},
      std::move(aggregation));
  if (service_accounts_->issues_tokens() && config_.controllers.token_secrets) {
    token_controller_ = std::make_unique<controllers::TokenController>(
        *storage_, [this](http::Request& r) { return handle(r); }, *service_accounts_,
        config_.root_ca_pem, config_.clock != nullptr ? *config_.clock : common::Clock::real());
  }
  storage_->expire_prefix("/registry/events/", config_.event_ttl);
  metrics_->add_gauge("apiserver_registered_watchers", "Watches open now.",
                      [this] { return static_cast<double>(resources_->open_watches()); });
  metrics_->add_gauge("kube_sandbox_store_revision", "The store's current revision.",
                      [this] { return static_cast<double>(store_.current_revision()); });
  metrics_->add_gauge("apiserver_storage_size_bytes", "Size of the store's database file.", [this] {
    auto status = store_.status();
    return status.is_ok() ? static_cast<double>(status->db_size) : 0.0;
  });
  HealthCheck ping{"ping", [] { return std::string(); }};
  HealthCheck log{"log", [] { return std::string(); }};
  HealthCheck etcd{"etcd", [this] { return store_health(); }};
  // As kube-apiserver's post-start hooks: /healthz and /livez fail until the bootstrap is done.
  live_checks_ = {ping, log, etcd, {"poststarthook/start-sandbox-bootstrap", [this] {
                                      return bootstrapped_ ? std::string()
                                                           : std::string("not finished");
                                    }}};
  ready_checks_ = {
      ping,
      log,
      etcd,
      {"etcd-readiness", etcd.check},
      {"shutdown",
       [this] { return shutting_down_ ? std::string("server is shutting down") : std::string(); }},
      {"poststarthook/start-sandbox-bootstrap",
       [this] { return ready_ ? std::string() : std::string("not finished"); }}};
}

ApiServer::~ApiServer() {
  aggregator_->stop();
  namespaces_->stop();  // its requests go through everything below; the rest may go in any order
  // The authorizers' watches call into the aggregation controller, which goes first.
  policy_->stop();
  node_graph_->stop();
}

void ApiServer::begin_shutdown() {
  shutting_down_ = true;
  resources_->close_watches();
}

void ApiServer::bootstrap(int secure_port, const std::string& external_host) {
  auto snapshot = registry_->snapshot();
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    http::Request create;
    create.method = "POST";
    create.path = "/api/v1/namespaces";
    create.body =
        nlohmann::json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}}
            .dump();
    resources_->serve(create, *snapshot);  // AlreadyExists after the first start: fine
  }
  // The system PriorityClasses kube-apiserver creates at start (its scheduling bootstrap hook).
  for (const auto& [name, value, description] :
       {std::tuple{"system-node-critical", 2000001000,
                   "Used for system critical pods that must not be moved from their current node."},
        std::tuple{"system-cluster-critical", 2000000000,
                   "Used for system critical pods that must run in the cluster, but can be moved "
                   "to another node if necessary."}}) {
    http::Request create;
    create.method = "POST";
    create.path = "/apis/scheduling.k8s.io/v1/priorityclasses";
    create.body = nlohmann::json{
        {"apiVersion", "scheduling.k8s.io/v1"},
        {"kind", "PriorityClass"},
        {"metadata", {{"name", name}}},
        {"value", value},
        {"description",
         description}}.dump();
    resources_->serve(create, *snapshot);
  }
  generic_store_->load(*snapshot);
  // The kubernetes service in default, on the first address of the service range.
  const std::string kubernetes_service_ip =
      *registry::ServiceIpAllocator::first_address(config_.service_cluster_ip_range);
  http::Request service;
  service.method = "POST";
  service.path = "/api/v1/namespaces/default/services";
  service.body =
      nlohmann::json{{"apiVersion", "v1"},
                     {"kind", "Service"},
                     {"metadata",
                      {{"name", "kubernetes"},
                       {"labels", {{"component", "apiserver"}, {"provider", "kubernetes"}}}}},
                     {"spec",
                      {{"clusterIP", kubernetes_service_ip},
                       {"ports", nlohmann::json::array({{{"name", "https"},
                                                         {"port", 443},
                                                         {"protocol", "TCP"},
                                                         {"targetPort", secure_port}}})}}}}
          .dump();
  resources_->serve(service, *snapshot);
  // The authorizers follow their objects from now on; the bootstrap policy is written as the
  // API server's own privileged user, past the pipeline.
  policy_->start();
  node_graph_->start();
  controllers::reconcile_bootstrap_policy([this](http::Request& r) { return route(r); });
  if (aggregation_) {
    aggregation_->start();
  }
  if (config_.controllers.namespace_deletion) {
    namespaces_->resync();  // deletions a previous run left unfinished
  }
  crds_->start();        // the stored CRDs' resources are served before readiness
  aggregator_->start();  // the APIServices of the groups served now
  if (namespace_defaults_running()) {
    namespace_defaults_->start();
  }
  if (token_controller_) {
    token_controller_->start();
  }
  // As kube-apiserver: discovery is served when the issuer is an https URL, else skipped with a
  // line in the log.
  auto metadata = service_accounts_->discovery(external_host + ":" + std::to_string(secure_port));
  if (metadata) {
    std::lock_guard lock(discovery_mu_);
    discovery_ = std::make_shared<const serviceaccount::OpenIdMetadata>(std::move(*metadata));
  } else if (service_accounts_->issues_tokens()) {
    log::info(0,
              "Could not construct pre-rendered responses for ServiceAccountIssuerDiscovery "
              "endpoints. Endpoints will not be enabled. Error: " +
                  metadata.error());
  }
  bootstrapped_ = true;
}

snapshots::Error ApiServer::restore_snapshot(const std::string& name, snapshots::Restored& out) {
  std::unique_lock writes(writes_mu_);
  if (auto error = snapshots::restore(store_, config_.snapshots_dir, name, out)) {
    return error;  // replace_all changes nothing when it fails
  }
  // The watch caches first: nothing may serve pre-restore events once the answer is out.
  storage_->reset_watches(out.replaced.compact_revision + 1);
  generic_store_->load(*registry_->snapshot());
  if (config_.controllers.namespace_deletion) {
    namespaces_->resync();
  }
  crds_->resync();
  log::info(0, "restored snapshot \"" + name + "\" at revision " +
                   std::to_string(out.replaced.header.revision) + " (" +
                   std::to_string(out.replaced.written) + " written, " +
                   std::to_string(out.replaced.deleted) + " deleted, " +
                   std::to_string(out.replaced.unchanged) + " unchanged) in " +
                   std::to_string(out.duration_ms) + " ms");
  return {};
}

http::Response ApiServer::health(const std::string& endpoint, const std::string& check_path,
                                 const http::Request& request,
                                 const std::vector<HealthCheck>& checks) {
  if (request.method != "GET" && request.method != "HEAD") {
    return errors::method_not_routed().response();
  }
  if (!check_path.empty()) {
    for (const auto& c : checks) {
      if (c.name == check_path) {
        std::string failure = c.check();
        if (failure.empty()) {
          return text(200, "ok");
        }
        return text(500, "internal server error: " + failure + "\n");
      }
    }
    return text(404, "404 page not found\n");
  }
  std::set<std::string> excluded;
  if (auto it = request.query.find("exclude"); it != request.query.end()) {
    excluded.insert(it->second.begin(), it->second.end());
  }
  std::string report;
  bool healthy = true;
  for (const auto& c : checks) {
    if (excluded.count(c.name) != 0) {
      report += "[+]" + c.name + " excluded: ok\n";
      continue;
    }
    std::string failure = c.check();
    if (failure.empty()) {
      report += "[+]" + c.name + " ok\n";
    } else {
      healthy = false;
      report += "[-]" + c.name + " failed: reason withheld\n";
    }
  }
  if (!healthy) {
    return text(500, report + endpoint + " check failed\n");
  }
  if (request.has_query("verbose")) {
    return text(200, report + endpoint + " check passed\n");
  }
  return text(200, "ok");
}

// One request: metrics and the trace around the barrier, the barrier around the pipeline.
http::Response ApiServer::handle(http::Request& request) {
  auto started = std::chrono::steady_clock::now();
  metrics_->begin_request();
  trace::RequestTrace trace = begin_trace(request);
  pipeline::Context context(request, &trace, &request);
  audit::RequestAudit audit(config_.auditor, request, trace.received);
  http::Response response;
  {
    trace::Scope scope(trace);
    audit::Scope audit_scope(audit);
    response = server::serve_guarded(request, [&] {
      try {
        return pipeline::run(stages_, context);
      } catch (...) {
        audit.panicked(describe_exception(std::current_exception()));
        throw;
      }
    });
  }
  for (const auto& [key, value] : trace.audit_annotations) {
    audit.annotate(key, value);
  }
  audit.finish(response, pipeline::request_attributes(context),
               audit.enabled() && long_running(request));
  auto elapsed = std::chrono::steady_clock::now() - started;
  // Only what a route serves is counted, as upstream instruments its routes: a path of the
  // client's choosing never becomes a label.
  std::optional<filters::RequestLabels> labels;
  if (context.answered_by == "handler") {
    labels = metric_labels(request, context.info);
  }
  if (labels) {
    metrics_->end_request(*labels, response.status, elapsed);
  } else {
    metrics_->end_uncounted_request();
  }
  log_request(request, labels ? labels->verb : request.method, response.status, elapsed);
  keep_trace(std::move(trace), request, response.status, elapsed);
  return response;
}

trace::RequestTrace ApiServer::begin_trace(const http::Request& request) {
  trace::RequestTrace trace;
  trace.steps.reserve(4);
  trace.received = std::chrono::system_clock::now();
  trace.method = request.method;
  trace.target = request.target;
  return trace;
}

void ApiServer::keep_trace(trace::RequestTrace trace, const http::Request& request, int status,
                           std::chrono::nanoseconds elapsed) const {
  if (request.path == endpoints::kDebugRequestsPath) {
    return;  // reading the traces leaves none
  }
  trace.id = traces_->next_id();
  trace.code = status;
  trace.took = elapsed;
  if (log::enabled(2)) {
    log::info(2, trace.summary());
  }
  traces_->add(std::move(trace));
}

std::optional<filters::RequestLabels> ApiServer::metric_labels(
    const http::Request& request, const std::optional<endpoints::RequestInfo>& info) const {
  filters::RequestLabels labels;
  std::string method = filters::upper_ascii(request.method);
  for (const char* root : {"/healthz", "/livez", "/readyz"}) {
    if (request.path == root) {
      labels.verb = filters::clean_verb(method == "HEAD" ? "GET" : method);
      labels.subresource = request.path;
      labels.component = "";  // upstream's health handlers name no component
      return labels;
    }
  }
  if (!info) {
    return std::nullopt;
  }
  auto snapshot = registry_->snapshot();
  const registry::Resource* resource = snapshot->find(info->group, info->version, info->resource);
  if (resource == nullptr ||
      (!info->subresource.empty() && resource->subresource(info->subresource) == nullptr)) {
    return std::nullopt;  // upstream's not-found handler is not instrumented
  }
  labels.group = resource->group;
  labels.version = resource->version;
  labels.resource = resource->resource;
  labels.subresource = info->subresource;
  labels.scope = !info->name.empty() || info->verb == "create" ? "resource"
                 : !info->namespace_.empty()                   ? "namespace"
                                                               : "cluster";
  std::string verb = method;
  if (verb == "GET" || verb == "HEAD") {
    verb = labels.scope == "resource" ? "GET" : "LIST";
  }
  if (info->verb == "watch") {
    verb = "WATCH";
  }
  // Server-side apply is counted apart from other patches, as upstream does.
  if (verb == "PATCH" && request.header("Content-Type") == "application/apply-patch+yaml") {
    verb = "APPLY";
  }
  for (const char* connect : {"attach", "exec", "log", "portforward"}) {
    if (info->subresource == connect) {
      verb = "CONNECT";
    }
  }
  labels.verb = filters::clean_verb(verb);
  if (auto dry = request.query.find("dryRun"); dry != request.query.end()) {
    labels.dry_run = filters::clean_dry_run(dry->second);
  }
  return labels;
}

void ApiServer::log_request(const http::Request& request, const std::string& verb, int status,
                            std::chrono::nanoseconds elapsed) const {
  if (!log::enabled(3)) {
    return;
  }
  log::info(3, "HTTP verb=\"" + verb + "\" URI=\"" + request.target + "\" latency=\"" +
                   std::to_string(std::chrono::duration<double, std::milli>(elapsed).count()) +
                   "ms\" userAgent=\"" + request.header("User-Agent") + "\" user=\"" +
                   request.user + "\" srcIP=\"" + request.remote_address +
                   "\" resp=" + std::to_string(status));
}

bool ApiServer::answers_quickly(const http::Request& request) {
  if (request.method != "GET") {
    return false;
  }
  for (const char* root : {"/healthz", "/livez", "/readyz", "/version"}) {
    if (request.path.rfind(root, 0) == 0) {
      return true;
    }
  }
  auto info = endpoints::parse_resource_path(request);
  return info && info->verb == "get";
}

bool ApiServer::runs_inline(const http::Request& request) const {
  return answers_quickly(request) && !aggregator_->proxies(request);
}

bool ApiServer::long_running(const http::Request& request) {
  auto info = endpoints::parse_resource_path(request);
  if (!info) {
    return false;
  }
  static const std::set<std::string> kStreaming = {"attach", "exec", "log", "portforward", "proxy"};
  return info->verb == "watch" || kStreaming.count(info->subresource) != 0;
}

std::optional<http::Response> ApiServer::admit(const http::Request& request) const {
  // All the stages but the handler, untraced: handle() traces a request let on. A refusal is
  // rare, and the stages run again to trace it.
  const auto started = std::chrono::steady_clock::now();
  const size_t before_handler = stages_.size() - 1;
  pipeline::Context context(request, nullptr);
  auto refused = pipeline::run_stages(stages_, before_handler, context);
  if (refused) {
    log_request(request, request.method, refused->status, std::chrono::nanoseconds(0));
    trace::RequestTrace trace = begin_trace(request);
    pipeline::Context traced(request, &trace);
    audit::RequestAudit audit(config_.auditor, request, trace.received);
    {
      audit::Scope audit_scope(audit);
      pipeline::run_stages(stages_, before_handler, traced);
    }
    audit.finish(*refused, pipeline::request_attributes(traced),
                 audit.enabled() && long_running(request));
    keep_trace(std::move(trace), request, refused->status,
               std::chrono::steady_clock::now() - started);
  }
  return refused;
}

std::vector<pipeline::Stage> ApiServer::stages() {
  std::vector<pipeline::Stage> stages = {
      pipeline::request_info_stage(),
      pipeline::authentication_stage(*authenticator_),
      pipeline::impersonation_stage(*authorizer_),
      pipeline::authorization_stage(*authorizer_),
      {"handler", [this](pipeline::Context& context) -> pipeline::Outcome {
         http::Request& request = *context.writable;
         request.user = std::move(context.user.name);
         request.groups = std::move(context.user.groups);
         request.uid = std::move(context.user.uid);
         request.extra = std::move(context.user.extra);
         http::Response response = route(request, context.info ? &*context.info : nullptr);
         return {response.stream ? "streaming" : "answered", std::move(response)};
       }}};
  if (config_.auditor) {
    // After authentication (the policy needs the user), before authorization (whose decision
    // the event carries) and impersonation (the policy judges who authenticated), as upstream's
    // audit filter.
    stages.insert(stages.begin() + 2, pipeline::audit_stage());
  }
  return stages;
}

http::Response ApiServer::route(http::Request& request, const endpoints::RequestInfo* info) {
  if (auto answer = aggregator_->serve(
          request, [this](http::Request& local) { return route_local(local, nullptr); })) {
    return std::move(*answer);
  }
  return route_local(request, info);
}

http::Response ApiServer::route_local(http::Request& request, const endpoints::RequestInfo* info) {
  const std::string& path = request.path;
  for (const auto& [endpoint, checks] : {std::pair{std::string("healthz"), &live_checks_},
                                         std::pair{std::string("livez"), &live_checks_},
                                         std::pair{std::string("readyz"), &ready_checks_}}) {
    std::string root = "/" + endpoint;
    if (path == root || path == root + "/") {
      return health(endpoint, "", request, *checks);
    }
    if (path.rfind(root + "/", 0) == 0) {
      return health(endpoint, path.substr(root.size() + 1), request, *checks);
    }
  }
  if (path == endpoints::kDebugRequestsPath) {
    return endpoints::serve_debug_requests(request, *traces_);
  }
  if (path == "/metrics") {
    http::Response r;
    r.set_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    r.body = metrics_->render();
    return r;
  }
  if (path == "/version" || path == "/version/") {
    const auto& v = version_info();
    return json(200, {{"major", v.major},
                      {"minor", v.minor},
                      {"gitVersion", v.git_version},
                      {"gitCommit", ""},
                      {"gitTreeState", "clean"},
                      {"buildDate", ""},
                      {"goVersion", v.go_version},
                      {"compiler", "gcc"},
                      {"platform", v.platform}});
  }
  if (endpoints::SnapshotEndpoint::handles(path)) {
    return snapshots_->serve(request);
  }
  std::shared_ptr<const serviceaccount::OpenIdMetadata> discovery;
  {
    std::lock_guard lock(discovery_mu_);
    discovery = discovery_;
  }
  if (auto response = endpoints::serve_issuer_discovery(request, discovery.get())) {
    return std::move(*response);
  }
  auto snapshot = registry_->snapshot();
  // Discovery names the address the client reached the server at.
  std::string address = request.header("Host");
  if (auto response = endpoints::serve_discovery(request, *snapshot,
                                                 address.empty() ? "127.0.0.1:6443" : address)) {
    return std::move(*response);
  }
  if (auto response = openapi_->serve(request, *snapshot)) {
    return std::move(*response);
  }
  std::shared_lock<std::shared_mutex> writing;
  if (request.method != "GET" && request.method != "HEAD") {
    writing = std::shared_lock(writes_mu_);  // waits while a snapshot restore runs
  }
  if (auto response = resources_->serve(request, *snapshot, info)) {
    std::string encoding = endpoints::accepted_encoding(request.header("Accept"));
    if (encoding.empty()) {
      return errors::failure(406, "NotAcceptable",
                             "only the following media types are accepted: application/json, "
                             "application/yaml")
          .response();
    }
    if (encoding == "yaml" && !response->stream) {
      auto doc = nlohmann::json::parse(response->body, nullptr, false);
      if (!doc.is_discarded()) {
        response->body = endpoints::json_to_yaml(doc);
        response->set_header("Content-Type", "application/yaml");
      }
    }
    return std::move(*response);
  }
  return errors::no_route().response();
}

}  // namespace apiserver
