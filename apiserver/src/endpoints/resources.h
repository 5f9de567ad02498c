// The REST handlers of every resource in the registry: get, list, watch, create, update, delete
// and deletecollection at /api/v1/... and /apis/<group>/<version>/..., generic over the registry
// rows (no per-kind handler code). Errors become metav1 Status objects with kube-apiserver's
// reasons, messages and details.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/component_statuses.h"
#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "authorization/authorizer.h"
#include "common/clock.h"
#include "filters/authenticator.h"
#include "registry/field_validation.h"
#include "registry/generic/store.h"
#include "storage/storage.h"

namespace apiserver::admission {
class Chain;
}

namespace apiserver::serviceaccount {
class ServiceAccountTokens;
}

namespace apiserver::endpoints {

// What a resource request asks for, parsed from its path, method and query.
struct RequestInfo {
  std::string verb;  // get, list, watch, create, update, patch, delete, deletecollection
  std::string group;
  std::string version;
  std::string namespace_;
  std::string resource;
  std::string name;
  std::string subresource;
};

// Parses /api/v1/... and /apis/<g>/<v>/... paths; nullopt for anything else.
std::optional<RequestInfo> parse_resource_path(const http::Request& request);

class WatchTicker;

class ResourceHandler {
 public:
  // Reads go to `storage`, writes through `store`. `store`, `authenticator` (for TokenReview),
  // `authorizer` and `policy` (the access reviews, RBAC's escalation checks), `service_accounts`
  // (TokenRequest; null: not served) and `clock` (the time of managedFields entries and tokens)
  // must outlive the handler.
  ResourceHandler(storage::Storage& storage, registry::GenericStore& store,
                  const filters::Authenticator& authenticator,
                  const authorization::Authorizer& authorizer, authorization::PolicyCache& policy,
                  const serviceaccount::ServiceAccountTokens* service_accounts = nullptr,
                  const common::Clock& clock = common::Clock::real());
  ~ResourceHandler();

  // nullopt when the path is not a resource path (the caller routes on). `known`: the request's
  // path already read by parse_resource_path, if it was (else serve reads it).
  std::optional<http::Response> serve(http::Request& request, const registry::Snapshot& snapshot,
                                      const RequestInfo* known = nullptr);

  // The admission chain every write passes (null, the default: none). `chain` outlives the
  // handler; set before requests are served.
  void set_admission(const admission::Chain* chain) { admission_ = chain; }

  // Where componentstatuses come from (unset: the resource answers 405 as one with no storage).
  // Set before requests are served.
  void set_component_statuses(ComponentStatusSource source) {
    component_statuses_ = std::move(source);
  }

  // Ends every open watch (graceful shutdown).
  void close_watches();
  size_t open_watches() const;

 private:
  // serve() once the path named a known resource.
  http::Response dispatch(const registry::Resource& r, const RequestInfo& info,
                          http::Request& request, const registry::Snapshot& snapshot);
  http::Response get(const registry::Resource& r, const RequestInfo& info,
                     const http::Request& request);
  http::Response list(const registry::Resource& r, const RequestInfo& info,
                      const http::Request& request);
  http::Response watch(const registry::Resource& r, const RequestInfo& info,
                       const http::Request& request);
  http::Response create(const registry::Resource& r, const RequestInfo& info,
                        const http::Request& request, const registry::Snapshot& snapshot);
  http::Response update(const registry::Resource& r, const RequestInfo& info,
                        const http::Request& request);
  // pods/log from the simulated containers, and the refusal of exec, attach and portforward
  // (pod_subresources.cpp).
  http::Response pod_log(const registry::Resource& r, const RequestInfo& info,
                         const http::Request& request);
  http::Response pod_stream_refusal(const registry::Resource& r, const RequestInfo& info);
  // pods/eviction: a delete that respects PodDisruptionBudgets (pod_eviction.cpp).
  http::Response evict(const registry::Resource& r, const RequestInfo& info,
                       const http::Request& request, const registry::Snapshot& snapshot);
  // serviceaccounts/token: TokenRequest (token_request.cpp).
  http::Response request_token(const registry::Resource& r, const RequestInfo& info,
                               const http::Request& request, const registry::Snapshot& snapshot);
  // PATCH in the four content types; /status and /scale too.
  http::Response patch(const registry::Resource& r, const RequestInfo& info,
                       const http::Request& request);
  // The create path once the body is an object: metadata, defaults, validation, field
  // ownership (unless `owned` says the caller recorded it), storage (not with dryRun).
  http::Response create_object(const registry::Resource& r, const RequestInfo& info,
                               const http::Request& request, nlohmann::json body,
                               const std::vector<std::string>& warnings, bool owned);
  // The update path: `body` replaces `stored` (the whole object, or its status through
  // /status). `raced` is set when the store changed under it (the caller may retry).
  http::Response update_object(const registry::Resource& r, const RequestInfo& info,
                               const http::Request& request, nlohmann::json body,
                               const storage::Object& stored,
                               const std::vector<std::string>& warnings, bool owned,
                               bool* raced = nullptr);
  // The scale subresource (autoscaling/v1 Scale) of workloads: get and update.
  http::Response scale(const registry::Resource& r, const RequestInfo& info,
                       const http::Request& request);
  // A pod bound to a node (pod_binding.h): POST to pods/binding, or to the legacy bindings.
  http::Response bind(const registry::Resource& r, const RequestInfo& info,
                      const http::Request& request, const registry::Snapshot& snapshot);
  http::Response remove(const registry::Resource& r, const RequestInfo& info,
                        const http::Request& request);
  http::Response remove_collection(const registry::Resource& r, const RequestInfo& info,
                                   const http::Request& request);
  // componentstatuses get and list, from component_statuses_ (component_statuses.cpp).
  http::Response component_statuses(const registry::Resource& r, const RequestInfo& info,
                                    const http::Request& request);

  storage::Storage& storage_;
  registry::GenericStore* store_;
  const filters::Authenticator& authenticator_;
  const authorization::Authorizer& authorizer_;
  authorization::PolicyCache& policy_;
  const serviceaccount::ServiceAccountTokens* service_accounts_;
  const common::Clock& clock_;
  std::shared_ptr<WatchTicker> ticker_;
  std::unique_ptr<registry::FieldValidator> field_validator_;
  const admission::Chain* admission_ = nullptr;
  ComponentStatusSource component_statuses_;
};

}  // namespace apiserver::endpoints
