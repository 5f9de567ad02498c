// A server with the default Node,RBAC chain over the bootstrap policy and a few bearer-token
// users (admin in system:masters, alice with no bindings, two nodes), for tests that go through
// the whole request pipeline as different users; and the RBAC objects they write.
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "apiserver/apiserver.h"
#include "store/store.h"
#include "test_request.h"

namespace apiserver::testing {

using nlohmann::json;

class Cluster {
 public:
  // `tweak` may change the configuration first (flags such as anonymous_auth).
  explicit Cluster(const std::function<void(ApiServerConfig&)>& tweak = {}) {
    store::Options options;
    options.durability = store::Durability::Ephemeral;
    store_ = std::move(store::Store::open(options)).value();
    apiserver::ApiServerConfig config;
    config.tokens["admin"] = {"admin", {"system:masters"}};
    config.tokens["alice"] = {"alice", {}};
    config.tokens["node1"] = {"system:node:node-1", {"system:nodes"}};
    config.tokens["node2"] = {"system:node:node-2", {"system:nodes"}};
    if (tweak) {
      tweak(config);
    }
    api_ = std::make_unique<apiserver::ApiServer>(*store_, config);
    api_->bootstrap();
    api_->set_ready(true);
  }

  struct Reply {
    int status;
    json body;  // discarded when the answer is not JSON
    std::string text;
  };
  // As the user of bearer `token` (empty: no credentials), with extra request `headers`.
  Reply call(const std::string& token, const std::string& method, const std::string& target,
             const json& body = nullptr,
             const std::multimap<std::string, std::string>& headers = {}) {
    auto request = make_request(method, target, body, token);
    if (token.empty()) {
      request.headers.erase("Authorization");  // anonymous
    }
    for (const auto& [name, value] : headers) {
      auto [it, inserted] = request.headers.emplace(name, value);
      if (!inserted) {
        auto& values = request.repeated_headers[name];
        if (values.empty()) {
          values.push_back(it->second);
        }
        values.push_back(value);
        it->second += ", " + value;
      }
    }
    auto response = api_->handle(request);
    return {response.status, json::parse(response.body, nullptr, false), response.body};
  }
  Reply admin(const std::string& method, const std::string& target, const json& body = nullptr) {
    return call("admin", method, target, body);
  }
  // Waits (bounded) until the controllers are done with what the last requests started.
  void settle() {
    REQUIRE(api_->wait_controllers_idle(std::chrono::seconds(5), std::chrono::seconds(20)));
  }

 private:
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<apiserver::ApiServer> api_;
};

inline json role(const std::string& name, json rules) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "Role"},
          {"metadata", {{"name", name}}},
          {"rules", std::move(rules)}};
}

inline json rule(std::vector<std::string> verbs, const std::string& group,
                 std::vector<std::string> resources) {
  return {{"verbs", verbs}, {"apiGroups", {group}}, {"resources", resources}};
}

inline json binding(const std::string& name, const std::string& kind, const std::string& role_name,
                    const std::string& user) {
  return {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", {{"name", name}}},
      {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", kind}, {"name", role_name}}},
      {"subjects",
       json::array(
           {{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "User"}, {"name", user}}})}};
}

inline json configmap(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}};
}

inline constexpr const char* kRoles = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles";
inline constexpr const char* kBindings =
    "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings";
inline constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

}  // namespace apiserver::testing
