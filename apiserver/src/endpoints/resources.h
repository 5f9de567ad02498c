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

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "filters/authentication.h"
#include "registry/field_validation.h"
#include "registry/service_ips.h"
#include "storage/storage.h"

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
  // `namespace_terminating` is told the name of each namespace that a delete marks Terminating.
  // `tokens` (for TokenReview) must outlive the handler.
  ResourceHandler(storage::Storage& storage, const filters::TokenTable& tokens,
                  std::function<void(const std::string&)> namespace_terminating);
  ~ResourceHandler();

  // nullopt when the path is not a resource path (the caller routes on).
  std::optional<http::Response> serve(http::Request& request,
                                      const registry::Snapshot& snapshot);

  // Marks the cluster IPs and node ports of the stored services as taken (at start-up).
  void load_service_allocations();

  // Ends every open watch (graceful shutdown).
  void close_watches();
  size_t open_watches() const;

 private:
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
  http::Response remove(const registry::Resource& r, const RequestInfo& info,
                        const http::Request& request);
  http::Response remove_collection(const registry::Resource& r, const RequestInfo& info,
                                   const http::Request& request);

  storage::Storage& storage_;
  const filters::TokenTable& tokens_;
  std::function<void(const std::string&)> namespace_terminating_;
  std::shared_ptr<WatchTicker> ticker_;
  std::unique_ptr<registry::FieldValidator> field_validator_;
  std::unique_ptr<registry::ServiceIpAllocator> service_ips_;
};

}  // namespace apiserver::endpoints
