#include "controllers/rbac_bootstrap.h"

#include <nlohmann/json.hpp>

#include "apiserver/log.h"
#include "authorization/bootstrap_policy.h"
#include "controllers/controller_request.h"
#include "registry/json_access.h"

namespace apiserver::controllers {
namespace {

using nlohmann::json;

// The path of an object of the policy: /apis/rbac.authorization.k8s.io/v1/[namespaces/ns/]kind.
std::string collection_path(const json& object) {
  const std::string kind = registry::value_at(object, {"kind"}).get<std::string>();
  std::string resource = kind == "ClusterRole"          ? "clusterroles"
                         : kind == "ClusterRoleBinding" ? "clusterrolebindings"
                         : kind == "Role"               ? "roles"
                                                        : "rolebindings";
  const json& ns = registry::value_at(registry::value_at(object, {"metadata"}), {"namespace"});
  std::string path = "/apis/rbac.authorization.k8s.io/v1/";
  if (ns.is_string()) {
    path += "namespaces/" + ns.get<std::string>() + "/";
  }
  return path + resource;
}

// A request of the API server's own privileged user, as its loopback client makes them.
http::Request request(const std::string& method, const std::string& path, const json& body) {
  http::Request r = loopback_request(method, path, body, "kube-apiserver (rbac/bootstrap-roles)");
  r.user = "system:apiserver";
  r.groups = {"system:masters", "system:authenticated"};
  return r;
}

void reconcile_one(const std::function<http::Response(http::Request&)>& client,
                   const json& expected, bool is_role) {
  const std::string name =
      registry::value_at(registry::value_at(expected, {"metadata"}), {"name"}).get<std::string>();
  const std::string collection = collection_path(expected);
  const std::string path = collection + "/" + name;
  http::Request get = request("GET", path, nullptr);
  http::Response got = client(get);
  json existing;
  if (got.status == 200) {
    existing = json::parse(got.body, nullptr, false);
  } else if (got.status != 404) {
    log::error("rbac bootstrap: reading " + path + " failed: " + std::to_string(got.status));
    return;
  }
  const json* have = existing.is_object() ? &existing : nullptr;
  authorization::Reconciled r = is_role ? authorization::reconcile_role(have, expected)
                                        : authorization::reconcile_binding(have, expected);
  http::Response answer;
  switch (r.op) {
    case authorization::Reconciled::Op::None:
      return;
    case authorization::Reconciled::Op::Create: {
      http::Request create = request("POST", collection, r.object);
      answer = client(create);
      break;
    }
    case authorization::Reconciled::Op::Update: {
      http::Request update = request("PUT", path, r.object);
      answer = client(update);
      break;
    }
    case authorization::Reconciled::Op::Recreate: {
      http::Request remove = request("DELETE", path, nullptr);
      client(remove);
      r.object["metadata"].erase("resourceVersion");
      r.object["metadata"].erase("uid");
      http::Request create = request("POST", collection, r.object);
      answer = client(create);
      break;
    }
  }
  if (answer.status >= 300) {
    log::error("rbac bootstrap: writing " + path + " failed: " + answer.body);
  }
}

}  // namespace

void reconcile_bootstrap_policy(const std::function<http::Response(http::Request&)>& client) {
  const json& policy = authorization::bootstrap_policy();
  for (const char* list : {"clusterRoles", "sandboxClusterRoles"}) {
    for (const auto& role : policy.at(list)) {
      reconcile_one(client, role, true);
    }
  }
  for (const char* list : {"clusterRoleBindings", "sandboxClusterRoleBindings"}) {
    for (const auto& binding : policy.at(list)) {
      reconcile_one(client, binding, false);
    }
  }
  for (const auto& role : policy.at("roles")) {
    reconcile_one(client, role, true);
  }
  for (const auto& binding : policy.at("roleBindings")) {
    reconcile_one(client, binding, false);
  }
}

}  // namespace apiserver::controllers
