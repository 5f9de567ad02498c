// An API client in process: each call is an HTTP request that goes through the API server's whole
// request pipeline (authentication as the caller's own user, authorization, the handler), exactly
// as kubectl's would, only without a socket. The cluster's controllers, scheduler and simulated
// kubelets talk to the API through it alone, so their requests show in the request trace under
// their users.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/http.h"
#include "common/result.h"

namespace cluster {

using nlohmann::json;

// What the API answered instead of the object: the HTTP code and the Status's reason and message.
struct ApiError {
  int code = 0;
  std::string reason;  // "NotFound", "Conflict", "AlreadyExists", "Expired", ...
  std::string message;

  bool not_found() const { return code == 404; }
  bool conflict() const { return code == 409 && reason == "Conflict"; }
  bool already_exists() const { return code == 409 && reason == "AlreadyExists"; }
};

template <class T>
using Result = common::Result<T, ApiError>;

// A resource of the API: where its collection and objects live.
struct ResourceRef {
  std::string group;  // "" for the core group
  std::string version;
  std::string resource;  // plural: "pods"
  bool namespaced = true;

  // /api/v1/namespaces/NS/pods, or /apis/apps/v1/deployments for every namespace (ns empty).
  std::string collection(std::string_view namespace_ = {}) const;
  // /api/v1/namespaces/NS/pods/NAME[/SUBRESOURCE]
  std::string object(std::string_view namespace_, std::string_view name,
                     std::string_view subresource = {}) const;
  // "apps/v1" or "v1".
  std::string api_version() const;
};

// The request pipeline's entry point (apiserver::ApiServer::handle).
using Handler = std::function<apiserver::http::Response(apiserver::http::Request&)>;
using Query = std::map<std::string, std::string>;

// Who a client is. In process it is presented as a verified client certificate would be (common
// name = user, organizations = groups), which is how kubelets authenticate to kube-apiserver; the
// server's authentication stage reads it as it reads any certificate.
struct Identity {
  std::string user;  // "system:serviceaccount:kube-system:replicaset-controller", "system:node:n1"
  std::vector<std::string> groups;
};

class Client {
 public:
  // `user_agent` names the component, as kube-controller-manager's
  // "kube-controller-manager/v1.32.0 (linux/amd64) kubernetes/.../replicaset-controller".
  Client(Handler handler, Identity identity, std::string user_agent);

  Result<json> get(const std::string& path, const Query& query = {}) const;
  Result<json> create(const std::string& path, const json& object, const Query& query = {}) const;
  Result<json> update(const std::string& path, const json& object) const;  // PUT
  // `content_type`: application/merge-patch+json, application/strategic-merge-patch+json, ...
  Result<json> patch(const std::string& path, std::string_view content_type,
                     const json& patch) const;
  // DELETE with DeleteOptions (propagationPolicy, preconditions, gracePeriodSeconds) when given.
  Result<json> remove(const std::string& path, const json& options = nullptr) const;
  // A watch: the response, whose stream carries one JSON event per line.
  Result<std::shared_ptr<apiserver::http::ChunkStream>> watch(const std::string& path,
                                                              const Query& query) const;

  const std::string& user_agent() const { return user_agent_; }
  const Identity& identity() const { return identity_; }

 private:
  apiserver::http::Response send(std::string method, const std::string& path, const Query& query,
                                 std::string body, std::string_view content_type) const;
  static Result<json> decode(const apiserver::http::Response& response);

  Handler handler_;
  Identity identity_;
  std::string user_agent_;
};

// The ApiError a response's Status carries (or a made-up one when the body is no Status).
ApiError error_of(int code, std::string_view body);

}  // namespace cluster
