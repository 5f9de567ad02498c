#include "aggregator/aggregator.h"

#include <charconv>

#include "aggregator/availability.h"
#include "apiserver/log.h"
#include "common/rfc3339.h"
#include "controllers/controller_queue.h"
#include "controllers/controller_request.h"
#include "endpoints/discovery.h"
#include "endpoints/openapi_http.h"
#include "endpoints/openapi_v2_proto.h"
#include "guard.h"
#include "trace/request_trace.h"

namespace apiserver::aggregator {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

const std::string kCrdsKey = "/crds";
const std::string kAllKey = "/all";
constexpr const char* kApiServices = "/apis/apiregistration.k8s.io/v1/apiservices";
constexpr size_t kMaxDiscoveryBytes = 3 * 1024 * 1024;

std::string prefix_of(const registry::Snapshot& snapshot, const char* group, const char* version,
                      const char* resource) {
  const registry::Resource* r = snapshot.find(group, version, resource);
  return r == nullptr || r->etcd_prefix.empty() ? std::string() : r->etcd_prefix + "/";
}

http::Response json_response(int status, const ordered_json& doc) {
  http::Response r;
  r.status = status;
  r.set_header("Content-Type", "application/json");
  r.body = doc.dump();
  return r;
}

std::string header_of(const http::Response& r, const std::string& name) {
  for (const auto& [key, value] : r.headers) {
    if (http::CaseInsensitiveLess{}(key, name) == http::CaseInsensitiveLess{}(name, key)) {
      return value;
    }
  }
  return {};
}

void drop_header(http::Response& r, const std::string& name) {
  std::erase_if(r.headers, [&name](const auto& h) {
    return !http::CaseInsensitiveLess{}(h.first, name) &&
           !http::CaseInsensitiveLess{}(name, h.first);
  });
}

}  // namespace

Aggregator::Aggregator(storage::Storage& storage, std::shared_ptr<registry::Registry> registry,
                       Client client, webhook::Lookups lookups, AggregatorOptions options)
    : storage_(storage),
      registry_(std::move(registry)),
      client_(std::move(client)),
      lookups_(std::move(lookups)),
      options_(std::move(options)),
      queue_(controllers::queue_options()) {
  auto snapshot = registry_->snapshot();
  std::vector<std::string> prefixes;
  for (auto [group, version, resource] :
       {std::tuple{"apiregistration.k8s.io", "v1", "apiservices"},
        std::tuple{"apiextensions.k8s.io", "v1", "customresourcedefinitions"},
        std::tuple{"", "v1", "services"}, std::tuple{"", "v1", "endpoints"},
        std::tuple{"discovery.k8s.io", "v1", "endpointslices"}}) {
    std::string prefix = prefix_of(*snapshot, group, version, resource);
    if (!prefix.empty()) {
      prefixes.push_back(std::move(prefix));
    }
  }
  follower_ = std::make_unique<authorization::ObjectFollower>(
      storage_, std::move(prefixes),
      [this](bool reset, const std::vector<authorization::ObjectChange>& changes) {
        on_changes(reset, changes);
      },
      "aggregator");
}

Aggregator::~Aggregator() {
  stop();
}

void Aggregator::start() {
  // A failure here is logged; the worker looks again on the next change.
  run_guarded("aggregator: start", [this] {
    publish_authentication();
    register_builtin();
    reconcile_crds();
  });
  follower_->start();
  started_ = true;
  thread_ = std::thread([this] { run(); });
}

void Aggregator::stop() {
  follower_->stop();
  queue_.shutdown();
  if (thread_.joinable()) {
    thread_.join();
  }
}

void Aggregator::run() {
  controllers::serve_keys(
      queue_, [] {}, [] {},
      [this](const std::string& key) {
        controllers::work_guarded(queue_, key,
                                  {"aggregator", "check", "apiservice", "its next change"},
                                  [this, &key] { work(key); });
      });
}

void Aggregator::on_changes(bool reset, const std::vector<authorization::ObjectChange>& changes) {
  auto snapshot = registry_->snapshot();
  const std::string apiservices =
      prefix_of(*snapshot, "apiregistration.k8s.io", "v1", "apiservices");
  const std::string crds =
      prefix_of(*snapshot, "apiextensions.k8s.io", "v1", "customresourcedefinitions");
  std::vector<std::string> names;
  bool crds_changed = reset;
  bool services_changed = reset;
  {
    std::lock_guard lock(mu_);
    if (reset) {
      services_.clear();
    }
    for (const auto& change : changes) {
      if (!apiservices.empty() && change.key.rfind(apiservices, 0) == 0) {
        const std::string name = controllers::name_of(change.key);
        if (change.deleted) {
          services_.erase(name);
          fetched_.erase(name);
        } else {
          json object = json::parse(change.value, nullptr, false);
          services_[name] = parse_apiservice(object);
        }
        names.push_back(name);
      } else if (!crds.empty() && change.key.rfind(crds, 0) == 0) {
        crds_changed = true;
      } else {
        services_changed = true;
      }
    }
    if (reset) {
      for (const auto& [name, s] : services_) {
        names.push_back(name);
      }
    }
  }
  for (const auto& name : names) {
    queue_.add(name);
  }
  if (crds_changed) {
    queue_.add(kCrdsKey);
  }
  if (services_changed) {
    queue_.add(kAllKey);
  }
}

void Aggregator::work(const std::string& key) {
  if (key == kCrdsKey) {
    reconcile_crds();
  } else if (key == kAllKey) {
    std::vector<std::string> remote;
    {
      std::lock_guard lock(mu_);
      for (const auto& [name, s] : services_) {
        if (s.service) {
          remote.push_back(name);
        }
      }
    }
    for (const auto& name : remote) {
      queue_.add(name);
    }
  } else {
    check(key);
  }
}

http::Response Aggregator::call(const std::string& method, const std::string& path,
                                const json& body) {
  http::Request request = controllers::loopback_request(method, path, body, "kube-aggregator");
  request.user = "system:apiserver";
  request.groups = {"system:masters", "system:authenticated"};
  return client_(request);
}

void Aggregator::publish_authentication() {
  const std::string path =
      "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";
  if (options_.authentication.empty()) {
    return;  // nothing to tell extension servers
  }
  json data(options_.authentication);
  auto stored = lookups_.get("", "configmaps", "kube-system", "extension-apiserver-authentication");
  if (!stored) {
    call("POST", "/api/v1/namespaces/kube-system/configmaps",
         {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", "extension-apiserver-authentication"}, {"namespace", "kube-system"}}},
          {"data", data}});
  } else if (!stored->contains("data") || (*stored)["data"] != data) {
    (*stored)["data"] = data;
    call("PUT", path, *stored);
  }
}

void Aggregator::register_builtin() {
  auto snapshot = registry_->snapshot();
  for (const auto& g : snapshot->groups()) {
    for (const auto& v : g.versions) {
      auto rows = snapshot->in_group_version(g.name, v);
      if (!rows.empty() && rows.front()->custom) {
        continue;  // a CRD's: reconcile_crds()
      }
      if (auto priority = builtin_priority(g.name, v)) {
        ensure_local(local_apiservice(g.name, v, *priority, kOnStart));
      } else {
        log::info(2, "aggregator: skipping APIService creation for " +
                         (g.name.empty() ? v : g.name + "/" + v));
      }
    }
  }
}

void Aggregator::reconcile_crds() {
  auto wanted =
      crd_group_versions(lookups_.list("apiextensions.k8s.io", "customresourcedefinitions", ""));
  std::vector<std::string> gone;
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, s] : services_) {
      if (s.automanaged == kAutomanaged && wanted.count(name) == 0) {
        gone.push_back(name);
      }
    }
  }
  for (const auto& name : gone) {
    call("DELETE", std::string(kApiServices) + "/" + name, nullptr);
  }
  for (const auto& [name, gv] : wanted) {
    if (builtin_priority(gv.first, gv.second)) {
      continue;
    }
    auto stored = lookups_.get("apiregistration.k8s.io", "apiservices", "", name);
    if (stored && parse_apiservice(*stored).service) {
      continue;  // someone else's APIService for this group/version
    }
    ensure_local(local_apiservice(gv.first, gv.second, kCrdPriority, kAutomanaged));
  }
}

void Aggregator::ensure_local(const json& object) {
  const std::string name = object["metadata"]["name"].get<std::string>();
  auto stored = lookups_.get("apiregistration.k8s.io", "apiservices", "", name);
  if (!stored) {
    http::Response created = call("POST", kApiServices, object);
    if (created.status >= 300 && created.status != 409) {
      log::error("aggregator: creating APIService " + name + ": " + created.body);
      return;
    }
  } else {
    json updated = *stored;
    bool changed = false;
    for (const char* part : {"spec", "metadata"}) {
      if (!updated[part].is_object()) {
        updated[part] = json::object();
      }
    }
    if (!updated["metadata"]["labels"].is_object()) {
      updated["metadata"]["labels"] = json::object();
    }
    for (const char* field :
         {"service", "group", "version", "groupPriorityMinimum", "versionPriority"}) {
      if (!updated["spec"].is_object() || updated["spec"][field] != object["spec"][field]) {
        updated["spec"][field] = object["spec"][field];
        changed = true;
      }
    }
    const json& want = object["metadata"]["labels"][kAutomanagedLabel];
    if (!updated["metadata"].is_object() || !updated["metadata"]["labels"].is_object() ||
        updated["metadata"]["labels"][kAutomanagedLabel] != want) {
      updated["metadata"]["labels"][kAutomanagedLabel] = want;
      changed = true;
    }
    if (changed) {
      call("PUT", std::string(kApiServices) + "/" + name, updated);
    }
  }
  write_condition(name, local_condition());
}

void Aggregator::write_condition(const std::string& name, const Condition& condition) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto stored = lookups_.get("apiregistration.k8s.io", "apiservices", "", name);
    if (!stored) {
      return;
    }
    json object = std::move(*stored);
    if (!set_available(object, condition,
                       common::format_rfc3339(std::chrono::system_clock::now()))) {
      return;
    }
    http::Response r = call("PUT", std::string(kApiServices) + "/" + name + "/status", object);
    if (r.status != 409) {
      if (r.status >= 300) {
        log::error("aggregator: writing the status of APIService " + name + ": " + r.body);
      } else {
        log::info(2, "aggregator: APIService " + name + " Available=" + condition.status + " (" +
                         condition.reason + ")");
      }
      return;
    }
  }
}

common::Result<webhook::Target> Aggregator::target_for(const ApiService& s,
                                                       const std::string& path_and_query) const {
  auto target = webhook::resolve_service(*s.service, path_and_query, lookups_);
  if (!target) {
    return target;
  }
  target->ca_pem = s.ca_pem;
  target->insecure_skip_verify = s.insecure_skip_verify;
  target->client_cert_pem = options_.proxy_client_cert_pem;
  target->client_key_pem = options_.proxy_client_key_pem;
  return target;
}

Condition Aggregator::check_remote(const ApiService& s, Fetched& fetched) {
  if (auto failed = check_service(s, lookups_)) {
    return *failed;
  }
  auto target = target_for(s, discovery_path(s));
  if (!target) {
    return {"False", "FailedDiscoveryCheck", target.error()};
  }
  // As upstream, the check asks as system:kube-aggregator in system:masters.
  webhook::Request request;
  request.headers = {{"Accept", "application/json"}};
  for (auto& h : identity_headers({"system:kube-aggregator", {"system:masters"}, {}})) {
    request.headers.push_back(std::move(h));
  }
  auto answer = webhook::send(*target, request, options_.check_timeout, kMaxDiscoveryBytes);
  Condition condition = discovery_condition(target->url, answer ? std::string() : answer.error(),
                                            answer ? answer->status : 0);
  if (condition.status != "True") {
    return condition;
  }
  json list = json::parse(answer->body, nullptr, false);
  if (list.is_object()) {
    fetched.resource_list = std::move(list);
  }
  if (auto v2 = target_for(s, "/openapi/v2")) {
    auto answer_v2 = webhook::send(*v2, request, options_.check_timeout, kMaxDiscoveryBytes);
    json doc = answer_v2 && answer_v2->status == 200 ? json::parse(answer_v2->body, nullptr, false)
                                                     : json();
    if (doc.is_object()) {
      // Only what belongs to the APIService's group/version, as the aggregator merges specs.
      const std::string prefix = "/apis/" + s.group + "/" + s.version;
      json kept = {{"paths", json::object()}, {"definitions", json::object()}};
      if (doc["paths"].is_object()) {
        for (const auto& [path, item] : doc["paths"].items()) {
          if (path == prefix || path.rfind(prefix + "/", 0) == 0) {
            kept["paths"][path] = item;
          }
        }
      }
      if (doc["definitions"].is_object()) {
        kept["definitions"] = doc["definitions"];
      }
      fetched.openapi_v2 = std::move(kept);
    }
  }
  auto openapi = target_for(s, "/openapi/v3");
  if (openapi) {
    auto paths = webhook::send(*openapi, request, options_.check_timeout, kMaxDiscoveryBytes);
    if (paths && paths->status == 200) {
      json doc = json::parse(paths->body, nullptr, false);
      const std::string key = "apis/" + s.group + "/" + s.version;
      if (doc.is_object() && doc["paths"].is_object() && doc["paths"][key].is_object() &&
          doc["paths"][key]["serverRelativeURL"].is_string()) {
        fetched.openapi_v3_url = doc["paths"][key]["serverRelativeURL"].get<std::string>();
      }
    }
  }
  return condition;
}

void Aggregator::check(const std::string& name) {
  std::optional<ApiService> s;
  {
    std::lock_guard lock(mu_);
    auto it = services_.find(name);
    if (it != services_.end()) {
      s = it->second;
    } else {
      fetched_.erase(name);
    }
  }
  if (!s) {
    return;
  }
  if (!s->service) {
    if (s->available != local_condition()) {
      write_condition(name, local_condition());
    }
    return;
  }
  Fetched fetched;
  Condition condition = check_remote(*s, fetched);
  {
    std::lock_guard lock(mu_);
    if (fetched.resource_list) {
      fetched_[name] = std::move(fetched);
    } else if (auto it = fetched_.find(name); it != fetched_.end()) {
      it->second.stale = true;
    }
  }
  if (s->available != condition) {
    write_condition(name, condition);
  }
  queue_.add_after(name, options_.recheck);
}

std::vector<ApiService> Aggregator::snapshot_services() const {
  std::lock_guard lock(mu_);
  std::vector<ApiService> out;
  for (const auto& [name, s] : services_) {
    out.push_back(s);
  }
  return out;
}

std::map<std::string, ExtensionGroup> Aggregator::extension_groups() const {
  std::lock_guard lock(mu_);
  std::map<std::string, ExtensionGroup> out;
  for (const auto& [name, s] : services_) {
    if (!s.service || s.group.empty()) {
      continue;
    }
    ExtensionGroup& g = out[s.group];
    g.services.push_back(s);
    auto it = fetched_.find(name);
    if (it != fetched_.end() && it->second.resource_list) {
      g.resource_lists[s.version] = *it->second.resource_list;
      g.stale[s.version] = it->second.stale;
    }
  }
  return out;
}

std::optional<ApiService> Aggregator::remote_for(const std::string& group,
                                                 const std::string& version) const {
  std::lock_guard lock(mu_);
  auto it = services_.find(apiservice_name(group, version));
  if (it == services_.end() || !it->second.service) {
    return std::nullopt;
  }
  return it->second;
}

bool Aggregator::proxies(const http::Request& request) const {
  const auto segments = split_path(request.path);
  if (segments.size() >= 3 && segments[0] == "apis") {
    return remote_for(segments[1], segments[2]).has_value();
  }
  return segments.size() == 5 && segments[0] == "openapi" && segments[1] == "v3" &&
         segments[2] == "apis" && remote_for(segments[3], segments[4]).has_value();
}

std::optional<http::Response> Aggregator::serve(http::Request& request, const Local& local) {
  if (!started_) {
    return std::nullopt;
  }
  const auto segments = split_path(request.path);
  if (segments.empty()) {
    return std::nullopt;
  }
  if (segments[0] == "apis") {
    if (segments.size() >= 3) {
      if (auto s = remote_for(segments[1], segments[2])) {
        return proxy(request, *s);
      }
      if (trace::active()) {
        auto snapshot = registry_->snapshot();
        auto rows = snapshot->in_group_version(segments[1], segments[2]);
        trace::note("aggregator", !rows.empty() && rows.front()->custom
                                      ? "delegated to apiextensions-apiserver (custom resource)"
                                      : "delegated to the local kube-apiserver");
      }
      return std::nullopt;
    }
    return serve_apis(request, local);
  }
  if (segments[0] == "openapi" && segments.size() >= 2 && segments[1] == "v3") {
    return serve_openapi_v3(request, local);
  }
  if (segments.size() == 2 && segments[0] == "openapi" && segments[1] == "v2") {
    return serve_openapi_v2(request, local);
  }
  if (segments[0] == "api" && trace::active()) {
    trace::note("aggregator", "delegated to the local kube-apiserver");
  }
  return std::nullopt;
}

std::optional<http::Response> Aggregator::serve_apis(http::Request& request, const Local& local) {
  auto extensions = extension_groups();
  if (extensions.empty()) {
    return std::nullopt;
  }
  const auto segments = split_path(request.path);
  if (segments.size() == 2) {
    auto snapshot = registry_->snapshot();
    for (const auto& g : snapshot->groups()) {
      if (g.name == segments[1]) {
        return std::nullopt;
      }
    }
    auto it = extensions.find(segments[1]);
    if (it == extensions.end()) {
      return std::nullopt;
    }
    if (request.method != "GET") {
      return std::nullopt;  // the server's own 405
    }
    trace::note("aggregator", "kube-aggregator served the extension group " + segments[1]);
    const ordered_json group = api_group(segments[1], it->second);
    ordered_json doc = {{"kind", "APIGroup"}, {"apiVersion", "v1"}};
    doc["name"] = group["name"];
    doc["versions"] = group["versions"];
    if (group.contains("preferredVersion")) {
      doc["preferredVersion"] = group["preferredVersion"];
    }
    return json_response(200, doc);
  }
  if (request.method != "GET") {
    return std::nullopt;
  }
  http::Request plain = request;
  plain.headers.erase("If-None-Match");
  http::Response answer = local(plain);
  const std::string type = header_of(answer, "Content-Type");
  if (answer.status != 200 || type.rfind("application/json", 0) != 0) {
    return std::nullopt;
  }
  ordered_json doc = ordered_json::parse(answer.body, nullptr, false);
  if (doc.is_discarded()) {
    return std::nullopt;
  }
  const bool aggregated = type.find("as=APIGroupDiscoveryList") != std::string::npos;
  std::vector<ApiService> local_services;
  for (auto& s : snapshot_services()) {
    if (!s.service) {
      local_services.push_back(std::move(s));
    }
  }
  merge_groups(doc, aggregated, local_services, extensions);
  trace::note("aggregator", "kube-aggregator merged " + std::to_string(extensions.size()) +
                                " extension group(s) into the discovery of the local servers");
  if (aggregated) {
    const std::string etag = endpoints::discovery_etag(doc["items"]);
    drop_header(answer, "ETag");
    answer.set_header("ETag", etag);
    if (request.header("If-None-Match") == etag) {
      answer.status = 304;
      answer.body.clear();
      return answer;
    }
  }
  answer.body = doc.dump();
  return answer;
}

std::optional<http::Response> Aggregator::serve_openapi_v3(http::Request& request,
                                                           const Local& local) {
  const auto segments = split_path(request.path);
  if (segments.size() == 5 && segments[2] == "apis") {
    if (auto s = remote_for(segments[3], segments[4])) {
      return proxy(request, *s);
    }
    return std::nullopt;
  }
  if (segments.size() != 2 || request.method != "GET") {
    return std::nullopt;
  }
  std::map<std::string, std::string> urls;
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, s] : services_) {
      auto it = fetched_.find(name);
      if (s.service && it != fetched_.end() && !it->second.openapi_v3_url.empty()) {
        urls["apis/" + s.group + "/" + s.version] = it->second.openapi_v3_url;
      }
    }
  }
  if (urls.empty()) {
    return std::nullopt;
  }
  http::Request plain = request;
  plain.headers.erase("If-None-Match");
  http::Response answer = local(plain);
  ordered_json doc = ordered_json::parse(answer.body, nullptr, false);
  if (answer.status != 200 || !doc.is_object() || !doc["paths"].is_object()) {
    return std::nullopt;
  }
  for (const auto& [path, url] : urls) {
    doc["paths"][path] = {{"serverRelativeURL", url}};
  }
  drop_header(answer, "ETag");
  answer.body = doc.dump();
  return answer;
}

std::optional<http::Response> Aggregator::serve_openapi_v2(http::Request& request,
                                                           const Local& local) {
  if (request.method != "GET") {
    return std::nullopt;
  }
  std::vector<json> extensions;
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, s] : services_) {
      auto it = fetched_.find(name);
      if (s.service && it != fetched_.end() && it->second.openapi_v2) {
        extensions.push_back(*it->second.openapi_v2);
      }
    }
  }
  const auto form = endpoints::openapi_detail::negotiate_v2(request.header("Accept"));
  if (extensions.empty() || !form) {
    return std::nullopt;  // the local document alone, or its 406
  }
  http::Request plain = request;
  plain.headers.erase("If-None-Match");
  plain.headers["Accept"] = "application/json";
  http::Response answer = local(plain);
  json doc = json::parse(answer.body, nullptr, false);
  if (answer.status != 200 || !doc.is_object() || !doc["paths"].is_object() ||
      !doc["definitions"].is_object()) {
    return std::nullopt;
  }
  // The extensions' paths join the local ones; a definition the local document already has keeps
  // the local meaning.
  for (const auto& extension : extensions) {
    for (const auto& [path, item] : extension["paths"].items()) {
      doc["paths"][path] = item;
    }
    for (const auto& [name, definition] : extension["definitions"].items()) {
      if (!doc["definitions"].contains(name)) {
        doc["definitions"][name] = definition;
      }
    }
  }
  const std::string text = doc.dump();
  std::string hash = endpoints::discovery_etag(ordered_json::array({text}));
  hash = hash.size() >= 2 ? hash.substr(1, hash.size() - 2) : hash;
  http::Response r;
  r.set_header("Vary", "Accept");
  if (*form == endpoints::openapi_detail::V2Form::Protobuf) {
    return endpoints::openapi_detail::content(request, endpoints::encode_openapi_v2(doc), hash,
                                              std::move(r),
                                              endpoints::openapi_detail::kV2ProtobufContentType);
  }
  return endpoints::openapi_detail::content(request, text, hash, std::move(r));
}

}  // namespace apiserver::aggregator
