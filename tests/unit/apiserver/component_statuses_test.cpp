// core/v1 componentstatuses: computed per request from the components this process runs, the
// healthz probes kube-apiserver makes otherwise, and the store as etcd-0; get, list, Table, the
// deprecation warning, and the answer for a name that is not a component.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_api.h"
#include "test_request.h"

using apiserver::testing::Api;
using apiserver::testing::make_request;
using apiserver::testing::response_header;
using nlohmann::json;

namespace {

constexpr const char* kComponents = "/api/v1/componentstatuses";

json healthy(const json& status) {
  REQUIRE(status["conditions"].size() == 1);
  return status["conditions"][0];
}

}  // namespace

TEST_CASE("componentstatuses lists the scheduler, the controller manager and etcd-0",
          "[componentstatuses]") {
  Api api;
  api.server().set_in_process_component("scheduler", [] { return true; });
  api.server().set_in_process_component("controller-manager", [] { return true; });
  auto request = make_request("GET", kComponents, nullptr, "t0ken");
  auto response = api.server().handle(request);
  REQUIRE(response.status == 200);
  CHECK(response_header(response, "Warning") ==
        "299 - \"v1 ComponentStatus is deprecated in v1.19+\"");
  json list = json::parse(response.body);
  CHECK(list["kind"] == "ComponentStatusList");
  CHECK(list["apiVersion"] == "v1");
  REQUIRE(list["items"].size() == 3);
  std::vector<std::string> names;
  for (const auto& item : list["items"]) {
    names.push_back(item["metadata"]["name"]);
    CHECK_FALSE(item.contains("kind"));
    json condition = healthy(item);
    CHECK(condition["type"] == "Healthy");
    CHECK(condition["status"] == "True");
    CHECK(condition["message"] == "ok");
    CHECK_FALSE(condition.contains("error"));
  }
  CHECK(names == std::vector<std::string>{"scheduler", "controller-manager", "etcd-0"});

  auto one = api.call("GET", std::string(kComponents) + "/etcd-0");
  REQUIRE(one.status == 200);
  CHECK(one.body["kind"] == "ComponentStatus");
  CHECK(one.body["metadata"]["name"] == "etcd-0");
  CHECK(healthy(one.body)["status"] == "True");

  SECTION("a name that is not a component: 500 with upstream's plain message") {
    auto missing = api.call("GET", std::string(kComponents) + "/kube-proxy");
    CHECK(missing.status == 500);
    CHECK(missing.body["kind"] == "Status");
    CHECK(missing.body["status"] == "Failure");
    CHECK(missing.body["message"] == "Component not found: kube-proxy");
    CHECK_FALSE(missing.body.contains("reason"));
  }
  SECTION("as a Table: Name, Status, Message, Error") {
    auto table_request = make_request("GET", kComponents, nullptr, "t0ken");
    table_request.headers["Accept"] = "application/json;as=Table;v=v1;g=meta.k8s.io";
    auto table = json::parse(api.server().handle(table_request).body);
    CHECK(table["kind"] == "Table");
    std::vector<std::string> columns;
    for (const auto& column : table["columnDefinitions"]) {
      columns.push_back(column["name"]);
    }
    CHECK(columns == std::vector<std::string>{"Name", "Status", "Message", "Error"});
    REQUIRE(table["rows"].size() == 3);
    CHECK(table["rows"][0]["cells"] == json::array({"scheduler", "Healthy", "ok", ""}));
  }
  SECTION("no watch, and no writes") {
    CHECK(api.call("GET", std::string(kComponents) + "?watch=true").status == 405);
    CHECK(api.call("DELETE", std::string(kComponents) + "/scheduler").status == 405);
  }
}

TEST_CASE("componentstatuses probes components this process does not run, as kube-apiserver",
          "[componentstatuses]") {
  Api api;
  // The scheduler runs here but is stopped: probed at its port like the controller manager.
  api.server().set_in_process_component("scheduler", [] { return false; });
  auto list = api.call("GET", kComponents);
  REQUIRE(list.status == 200);
  REQUIRE(list.body["items"].size() == 3);
  for (const auto& [index, port] :
       std::vector<std::pair<int, std::string>>{{0, "10259"}, {1, "10257"}}) {
    json condition = healthy(list.body["items"][index]);
    INFO(condition.dump());
    // Nothing listens there on a test machine: the probe's failure, in Go's client's words, is
    // the message (no error: the probe ran); anything that does answer is its body.
    if (condition["status"] == "False") {
      CHECK(condition["message"].get<std::string>().starts_with("Get \"https://127.0.0.1:" + port +
                                                                "/healthz\": "));
      CHECK_FALSE(condition.contains("error"));
    } else {
      CHECK(condition["status"] == "True");
    }
  }
  CHECK(healthy(list.body["items"][2])["status"] == "True");
}
