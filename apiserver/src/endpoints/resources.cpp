// The resource handler's routing: the path read into a RequestInfo, and each request sent to the
// verb's handler (resource_reads.cpp, resource_writes.cpp, patch_handler.cpp,
// scale_subresource.cpp) once the resource, subresource and method are known to be served.
#include "endpoints/resources.h"

#include <nlohmann/json.hpp>

#include "endpoints/accept.h"
#include "endpoints/body_decode.h"
#include "endpoints/collection.h"
#include "endpoints/continue_token.h"
#include "endpoints/delete_options.h"
#include "endpoints/field_checks.h"
#include "endpoints/object_answers.h"
#include "endpoints/query_params.h"
#include "endpoints/reviews.h"
#include "endpoints/served_json.h"
#include "endpoints/status.h"
#include "endpoints/watch_stream.h"
#include "endpoints/write_options.h"
#include "errors/status.h"
#include "registry/crd_schema.h"
#include "registry/custom_resources.h"
#include "registry/generic/resource_errors.h"
#include "registry/generic/write_steps.h"
#include "registry/json_access.h"
#include "registry/lifecycle.h"
#include "registry/objects.h"
#include "registry/table.h"
#include "serviceaccount/service_account_tokens.h"

namespace apiserver::endpoints {

using nlohmann::json;
using registry::Resource;

namespace {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) {
      end = path.size();
    }
    if (end > start) {
      parts.push_back(path.substr(start, end - start));
    }
    start = end + 1;
  }
  return parts;
}

}  // namespace

std::optional<RequestInfo> parse_resource_path(const http::Request& request) {
  auto parts = split_path(request.path);
  RequestInfo info;
  size_t i = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    info.version = parts[1];
    i = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    info.group = parts[1];
    info.version = parts[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  bool watch_path = false;
  if (i < parts.size() && parts[i] == "watch") {
    watch_path = true;
    ++i;
  }
  std::vector<std::string> rest(parts.begin() + static_cast<long>(i), parts.end());
  if (rest.empty()) {
    return std::nullopt;  // discovery
  }
  // namespaces/<ns>/<resource>[/<name>[/<sub>]], unless it is the namespace itself:
  // namespaces, namespaces/<name>, namespaces/<name>/{status,finalize}.
  if (rest[0] == "namespaces" && rest.size() >= 3 &&
      !(rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize"))) {
    info.namespace_ = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.size() > 3) {
    return std::nullopt;
  }
  info.resource = rest[0];
  if (rest.size() >= 2) {
    info.name = rest[1];
  }
  if (rest.size() == 3) {
    info.subresource = rest[2];
  }
  const std::string& m = request.method;
  bool watch_param = query_flag(request, "watch");
  if (m == "GET" || m == "HEAD") {
    if (watch_path || watch_param) {
      info.verb = "watch";
    } else {
      info.verb = info.name.empty() ? "list" : "get";
    }
  } else if (m == "POST") {
    info.verb = "create";
  } else if (m == "PUT") {
    info.verb = "update";
  } else if (m == "PATCH") {
    info.verb = "patch";
  } else if (m == "DELETE") {
    info.verb = info.name.empty() ? "deletecollection" : "delete";
  } else {
    info.verb = "unknown";
  }
  return info;
}

ResourceHandler::ResourceHandler(storage::Storage& storage, registry::GenericStore& store,
                                 const filters::Authenticator& authenticator,
                                 const authorization::Authorizer& authorizer,
                                 authorization::PolicyCache& policy,
                                 const serviceaccount::ServiceAccountTokens* service_accounts,
                                 const common::Clock& clock)
    : storage_(storage),
      store_(&store),
      authenticator_(authenticator),
      authorizer_(authorizer),
      policy_(policy),
      service_accounts_(service_accounts),
      clock_(clock),
      ticker_(std::make_shared<WatchTicker>()),
      field_validator_(std::make_unique<registry::FieldValidator>()) {}

ResourceHandler::~ResourceHandler() = default;

void ResourceHandler::close_watches() {
  ticker_->close_all();
}

size_t ResourceHandler::open_watches() const {
  return ticker_->count();
}

std::optional<http::Response> ResourceHandler::serve(http::Request& request,
                                                     const registry::Snapshot& snapshot,
                                                     const RequestInfo* known) {
  std::optional<RequestInfo> parsed;
  if (known == nullptr) {
    parsed = parse_resource_path(request);
    if (!parsed) {
      return std::nullopt;
    }
  }
  const RequestInfo* info = known != nullptr ? known : &*parsed;
  const Resource* r = snapshot.find(info->group, info->version, info->resource);
  if (r == nullptr) {
    return errors::no_route().response();
  }
  http::Response response = dispatch(*r, *info, request, snapshot);
  // Upstream warns on every request made through a deprecated version, failed ones included.
  if (auto deprecated = registry::deprecation_warning(r->group, r->version, r->kind)) {
    add_warnings(response, registry::warning_headers({*deprecated}));
  } else if (r->custom && r->custom->deprecated) {
    add_warnings(response, registry::warning_headers({r->custom->deprecation_warning}));
  }
  return response;
}

http::Response ResourceHandler::dispatch(const Resource& r, const RequestInfo& info,
                                         http::Request& request,
                                         const registry::Snapshot& snapshot) {
  if (!info.namespace_.empty() && !r.namespaced) {
    return errors::no_route().response();
  }
  // A create whose body is a core Binding: pods/binding, or the legacy bindings collection.
  const registry::Subresource* sub =
      info.subresource.empty() ? nullptr : r.subresource(info.subresource);
  const bool binding = info.verb == "create" && !r.custom &&
                       (sub != nullptr ? sub->kind.group.empty() && sub->kind.kind == "Binding"
                                       : r.group.empty() && r.kind == "Binding");
  if (!info.subresource.empty()) {
    if (sub == nullptr) {
      return errors::no_route().response();
    }
    if (r.group.empty() && r.resource == "pods") {
      // What a kubelet would serve: the simulated containers' logs, and no exec.
      if (info.subresource == "log" && info.verb == "get") {
        return pod_log(r, info, request);
      }
      if (info.subresource == "eviction" && info.verb == "create") {
        return evict(r, info, request, snapshot);
      }
      if ((info.subresource == "exec" || info.subresource == "attach" ||
           info.subresource == "portforward") &&
          (info.verb == "get" || info.verb == "create")) {
        return pod_stream_refusal(r, info);
      }
    }
    if (r.group.empty() && r.resource == "serviceaccounts" && info.subresource == "token" &&
        info.verb == "create" && service_accounts_ != nullptr &&
        service_accounts_->issues_tokens()) {
      return request_token(r, info, request, snapshot);
    }
    const bool finalize = info.subresource == "finalize" && r.group.empty() &&
                          r.resource == "namespaces" && info.verb == "update";
    const bool approval = info.subresource == "approval" && r.group == "certificates.k8s.io" &&
                          r.resource == "certificatesigningrequests";
    if (info.subresource != "status" && info.subresource != "scale" && !binding && !finalize &&
        !approval) {
      return status_with_details(405, "MethodNotAllowed",
                                 info.subresource + " is not supported on resources of kind \"" +
                                     r.group_resource() + "\" by this sandbox yet",
                                 {{"group", r.group}, {"kind", r.group_resource()}});
    }
  }
  if (info.verb == "create" && info.subresource.empty() && is_review(r)) {
    auto body = decode_checked_body(request, r, *field_validator_);
    if (!body) {
      return body.error().response();
    }
    http::Response answer =
        serve_review(r, request, info.namespace_, body->object, authenticator_, authorizer_);
    add_warnings(answer, body->warnings);
    return answer;
  }
  if (r.group.empty() && r.resource == "componentstatuses" && component_statuses_ &&
      info.subresource.empty() && (info.verb == "get" || info.verb == "list")) {
    return component_statuses(r, info, request);
  }
  if (r.etcd_prefix.empty() && !binding) {
    return status_with_details(
        405, "MethodNotAllowed",
        info.verb + " is not supported on resources of kind \"" + r.group_resource() + "\"",
        {{"group", r.group}, {"kind", r.group_resource()}});
  }
  const std::vector<std::string>& verbs =
      info.subresource.empty() ? r.verbs : r.subresource(info.subresource)->verbs;
  std::string verb =
      info.verb == "deletecollection" && !info.subresource.empty() ? "delete" : info.verb;
  // Upstream routes only the methods a path serves: PUT or PATCH on a collection, POST on an
  // object and any write the resource does not support find no route.
  const bool write = verb != "get" && verb != "list" && verb != "watch";
  const bool collection_write = info.name.empty() && (verb == "update" || verb == "patch");
  const bool named_create = !info.name.empty() && verb == "create" && info.subresource.empty();
  if (collection_write || named_create ||
      (write && std::find(verbs.begin(), verbs.end(), verb) == verbs.end())) {
    return errors::method_not_routed().response();
  }
  if (std::find(verbs.begin(), verbs.end(), verb) == verbs.end()) {
    return status_with_details(
        405, "MethodNotAllowed",
        verb + " is not supported on resources of kind \"" + r.group_resource() + "\"",
        {{"group", r.group}, {"kind", r.group_resource()}});
  }
  if (binding) {
    return bind(r, info, request, snapshot);
  }
  if (info.subresource == "scale" && (info.verb == "get" || info.verb == "update")) {
    return scale(r, info, request);
  }
  if (info.verb == "get") {
    return get(r, info, request);
  }
  if (info.verb == "list") {
    return list(r, info, request);
  }
  if (info.verb == "watch") {
    return watch(r, info, request);
  }
  if (info.verb == "create") {
    return create(r, info, request, snapshot);
  }
  if (info.verb == "update") {
    return update(r, info, request);
  }
  if (info.verb == "delete") {
    return remove(r, info, request);
  }
  if (info.verb == "deletecollection") {
    return remove_collection(r, info, request);
  }
  return patch(r, info, request);
}

}  // namespace apiserver::endpoints
