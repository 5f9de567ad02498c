// An API server over an ephemeral store, driven through ApiServer::handle as the HTTPS layer
// would: the fixture of the tests that send requests.
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "apiserver/apiserver.h"
#include "store/store.h"
#include "test_request.h"

namespace apiserver::testing {

// Authenticated with a bearer token as user "admin".
class Api {
 public:
  // `clock`: the time of managedFields entries (nullptr: the real clock); outlives the Api.
  // `service_accounts`: with a signing key, tokens are issued (TokenRequest is served).
  // `adjust` changes the rest of the configuration before the server is made.
  explicit Api(const common::Clock* clock = nullptr, ServiceAccountOptions service_accounts = {},
               const std::function<void(ApiServerConfig&)>& adjust = {}) {
    store::Options options;
    options.durability = store::Durability::Ephemeral;
    auto opened = store::Store::open(options);
    REQUIRE(opened.is_ok());
    store_ = std::move(opened).value();
    ApiServerConfig config;
    config.tokens["t0ken"] = {"admin", {"system:masters"}};
    config.clock = clock;
    config.service_accounts = std::move(service_accounts);
    if (adjust) {
      adjust(config);
    }
    api_ = std::make_unique<ApiServer>(*store_, config);
    api_->bootstrap();
    api_->set_ready(true);
  }

  struct Reply {
    int status;
    nlohmann::json body;
  };

  // Starts a watch and returns its stream.
  std::shared_ptr<http::ChunkStream> watch(const std::string& target) {
    auto request = make_request("GET", target, nullptr);
    auto response = api_->handle(request);
    REQUIRE(response.status == 200);
    REQUIRE(response.stream);
    return response.stream;
  }

  store::Store& db() { return *store_; }
  ApiServer& server() { return *api_; }
  http::Response raw(http::Request& request) { return api_->handle(request); }

  // Waits (bounded) until the controllers are done with what the last requests started.
  void settle() {
    REQUIRE(api_->wait_controllers_idle(std::chrono::seconds(5), std::chrono::seconds(20)));
  }

  Reply call(const std::string& method, const std::string& target,
             const nlohmann::json& body = nullptr) {
    auto request = make_request(method, target, body);
    auto response = api_->handle(request);
    return {response.status, nlohmann::json::parse(response.body, nullptr, false)};
  }

  // PATCH with a content type and a raw body (YAML for apply).
  Reply patch(const std::string& target, const std::string& type, const std::string& body) {
    return send("PATCH", target, type, body);
  }

  // Any method with a raw body of the given content type.
  Reply send(const std::string& method, const std::string& target, const std::string& type,
             const std::string& body) {
    auto request = make_request(method, target, nullptr);
    request.headers["Content-Type"] = type;
    request.body = body;
    auto response = api_->handle(request);
    return {response.status, nlohmann::json::parse(response.body, nullptr, false)};
  }

 private:
  static http::Request make_request(const std::string& method, const std::string& target,
                                    const nlohmann::json& body) {
    return testing::make_request(method, target, body, "t0ken");
  }

  std::unique_ptr<store::Store> store_;
  std::unique_ptr<ApiServer> api_;
};

inline constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

inline nlohmann::json configmap(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}};
}

inline constexpr const char* kPods = "/api/v1/namespaces/default/pods";

// A Pod of one container, on no node yet.
inline nlohmann::json pod(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}}},
          {"spec", {{"containers", nlohmann::json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
}

// A Deployment of one container labelled app=<name>.
inline nlohmann::json deployment(const std::string& name, int replicas) {
  return {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", {{"name", name}}},
      {"spec",
       {{"replicas", replicas},
        {"selector", {{"matchLabels", {{"app", name}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", name}}}}},
          {"spec",
           {{"containers", nlohmann::json::array({{{"name", "app"}, {"image", "nginx"}}})}}}}}}}};
}

// The reply is a Status with exactly this code, reason and message.
inline void check_status(const Api::Reply& reply, int code, const std::string& reason,
                         const std::string& message) {
  CHECK(reply.status == code);
  CHECK(reply.body.value("kind", "") == "Status");
  CHECK(reply.body.value("code", 0) == code);
  CHECK(reply.body.value("reason", "") == reason);
  CHECK(reply.body.value("message", "") == message);
}

}  // namespace apiserver::testing
