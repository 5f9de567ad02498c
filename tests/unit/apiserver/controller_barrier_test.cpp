// The controllers' barrier: work that throws is logged and retried after a backoff, and the
// controller thread goes on with the next key.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "apiserver/log.h"
#include "common/clock.h"
#include "controllers/crd_controller.h"
#include "controllers/namespace_controller.h"
#include "controllers/namespace_defaults.h"
#include "guard.h"
#include "registry/custom_resources.h"
#include "store/store.h"

using common::FakeClock;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<store::Store> open_store() {
  store::Options options;
  options.durability = store::Durability::Ephemeral;
  auto opened = store::Store::open(options);
  REQUIRE(opened.is_ok());
  return std::move(opened).value();
}

// A Namespace object being deleted (status.phase Terminating).
json terminating_namespace(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Namespace"},
          {"metadata", {{"name", name}}},
          {"status", {{"phase", "Terminating"}}}};
}

// Captures the process log for the life of the object; read it once the threads that log ended.
class LogCapture {
 public:
  LogCapture() { apiserver::log::set_sink(&text_); }
  ~LogCapture() { apiserver::log::set_sink(nullptr); }
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
};

// A client that throws on its first call and answers every later call with `status`, echoing
// the body; it records the calls.
class FlakyClient {
 public:
  explicit FlakyClient(int status) : status_(status) {}

  apiserver::http::Response operator()(apiserver::http::Request& request) {
    std::lock_guard lock(mu_);
    calls_.push_back(request.method + " " + request.path);
    bodies_.push_back(request.body);
    if (calls_.size() == 1) {
      throw std::runtime_error("injected failure");
    }
    apiserver::http::Response response;
    response.status = status_;
    response.body = request.body;
    return response;
  }
  std::vector<std::string> calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }
  std::string body(size_t i) const {
    std::lock_guard lock(mu_);
    return i < bodies_.size() ? bodies_[i] : "";
  }

 private:
  const int status_;
  mutable std::mutex mu_;  // protects calls_, bodies_
  std::vector<std::string> calls_;
  std::vector<std::string> bodies_;
};

}  // namespace

TEST_CASE("the controller guard reports an escaped exception and logs what was being done",
          "[controllers][barrier]") {
  std::string log;
  {
    LogCapture capture;
    CHECK(apiserver::run_guarded("test: reconcile x", [] {}));
    CHECK_FALSE(
        apiserver::run_guarded("test: reconcile x", [] { throw std::out_of_range("index 7"); }));
    CHECK_FALSE(apiserver::run_guarded("test: reconcile y", [] { throw 42; }));
    log = capture.text();
  }
  CHECK(log.find("internal error in test: reconcile x: index 7\n") != std::string::npos);
  CHECK(log.find("internal error in test: reconcile y: unknown exception\n") != std::string::npos);
}

TEST_CASE("a CRD whose reconcile throws is retried until its names are accepted",
          "[controllers][barrier][crd]") {
  auto db = open_store();
  apiserver::storage::Storage storage(*db);
  auto registry = apiserver::registry::Registry::builtin();
  const json crd = {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", {{"name", "gadgets.example.com"}}},
      {"spec",
       {{"group", "example.com"},
        {"scope", "Namespaced"},
        {"names", {{"plural", "gadgets"}, {"kind", "Gadget"}}},
        {"versions",
         {{{"name", "v1"},
           {"served", true},
           {"storage", true},
           {"schema",
            {{"openAPIV3Schema",
              {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}}}}}}};
  int64_t revision = 0;
  REQUIRE_FALSE(storage.create(std::string(apiserver::registry::kCrdPrefix) + "gadgets.example.com",
                               crd.dump(), revision));
  FlakyClient client(200);
  FakeClock clock;
  std::string log;
  {
    LogCapture capture;
    apiserver::controllers::CrdController controller(
        registry, storage, [&](apiserver::http::Request& r) { return client(r); }, clock);
    controller.start();  // the first status write throws on this thread: caught, queued to retry
    // Idle but for the retry, 5 ms away on the clock: nothing is tried before it is due.
    REQUIRE(controller.queue().wait_idle(clock.now(), 10s));
    CHECK(client.calls().size() == 1);
    CHECK(controller.queue().requeues("gadgets.example.com") == 1);
    clock.advance(4ms);
    CHECK(controller.queue().idle(clock.now()));
    clock.advance(1ms);
    REQUIRE(controller.queue().wait_idle(common::Clock::time_point::max(), 10s));
    CHECK(controller.queue().requeues("gadgets.example.com") == 0);  // it succeeded
    log = capture.text();
  }
  const auto calls = client.calls();
  CHECK(calls[0] ==
        "PUT /apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
        "gadgets.example.com/status");
  CHECK(calls[1] == calls[0]);
  const json written = json::parse(client.body(1));
  // The names are accepted and the CRD is Installing; the write's own watch event (which this
  // fake client never makes) would bring it to Established.
  std::string states;
  for (const auto& c : written["status"]["conditions"]) {
    states += c["type"].get<std::string>() + "=" + c["status"].get<std::string>() + "/" +
              c["reason"].get<std::string>() + " ";
  }
  CHECK(states == "NamesAccepted=True/NoConflicts Established=False/Installing ");
  CHECK(log.find("crd controller: reconcile customresourcedefinition gadgets.example.com: "
                 "injected failure") != std::string::npos);
}

TEST_CASE("a namespace whose defaults reconcile throws is retried",
          "[controllers][barrier][namespaces]") {
  auto db = open_store();
  apiserver::storage::Storage storage(*db);
  int64_t revision = 0;
  REQUIRE_FALSE(storage.create(
      "/registry/namespaces/team",
      json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team"}}}}.dump(),
      revision));
  FlakyClient client(201);
  FakeClock clock;
  std::string log;
  {
    LogCapture capture;
    apiserver::controllers::NamespaceDefaultsController controller(
        storage, [&](apiserver::http::Request& r) { return client(r); }, "", true, clock);
    controller.start();
    REQUIRE(controller.queue().wait_idle(clock.now(), 10s));
    CHECK(client.calls().size() == 1);
    clock.advance(5ms);
    REQUIRE(controller.queue().wait_idle(common::Clock::time_point::max(), 10s));
    log = capture.text();
  }
  const auto calls = client.calls();
  CHECK(calls[0] == "POST /api/v1/namespaces/team/serviceaccounts");
  CHECK(calls[1] == calls[0]);
  CHECK(log.find("namespace defaults controller: reconcile namespace team: injected failure") !=
        std::string::npos);
}

TEST_CASE("a namespace whose finalize throws is retried", "[controllers][barrier][namespaces]") {
  auto db = open_store();
  apiserver::storage::Storage storage(*db);
  auto registry = apiserver::registry::Registry::builtin();
  int64_t revision = 0;
  json ns = terminating_namespace("held");
  ns["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z";
  ns["spec"] = {{"finalizers", {"kubernetes"}}};
  REQUIRE_FALSE(storage.create("/registry/namespaces/held", ns.dump(), revision));
  REQUIRE_FALSE(storage.create(
      "/registry/configmaps/held/cm",
      json{{"apiVersion", "v1"},
           {"kind", "ConfigMap"},
           {"metadata", {{"name", "cm"}, {"namespace", "held"}, {"finalizers", {"x/hold"}}}}}
          .dump(),
      revision));
  FlakyClient client(200);
  FakeClock clock;
  std::string log;
  {
    LogCapture capture;
    apiserver::controllers::NamespaceController controller(
        registry, storage, [&](apiserver::http::Request& r) { return client(r); }, clock);
    controller.enqueue("held");
    REQUIRE(controller.queue().wait_idle(clock.now(), 10s));
    CHECK(client.calls().size() == 1);
    clock.advance(5ms);  // the first backoff
    REQUIRE(controller.queue().wait_idle(clock.now(), 10s));
    log = capture.text();
  }
  const auto calls = client.calls();
  REQUIRE(calls.size() >= 2);
  CHECK(calls[0] == "DELETE /api/v1/namespaces/held/configmaps");
  CHECK(calls[1] == calls[0]);
  CHECK(log.find("namespace controller: finalize namespace held: injected failure") !=
        std::string::npos);
}
