// The controllers' barrier: work that throws is logged and retried after a backoff, and the
// controller thread goes on with the next key.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "apiserver/log.h"
#include "controllers/crd_controller.h"
#include "guard.h"
#include "controllers/namespace_controller.h"
#include "controllers/namespace_defaults.h"
#include "controllers/retry_backoff.h"
#include "registry/custom_resources.h"
#include "store/store.h"

using apiserver::controllers::RetryBackoff;
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

// Waits (bounded) until `done` holds; the controllers work on their own threads.
template <typename F>
bool eventually(F done) {
  for (int i = 0; i < 500 && !done(); ++i) {
    std::this_thread::sleep_for(10ms);
  }
  return done();
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

TEST_CASE("retry backoff doubles per failure up to its cap and forgets a success",
          "[controllers][barrier]") {
  RetryBackoff backoff(5ms, 20ms, 2);
  const auto t0 = RetryBackoff::Clock::time_point{} + 1h;
  CHECK(backoff.failed("a", t0) == t0 + 5ms);
  CHECK(backoff.failed("a", t0) == t0 + 10ms);
  CHECK(backoff.failed("a", t0) == t0 + 20ms);
  CHECK(backoff.failed("a", t0) == t0 + 20ms);  // capped
  CHECK(backoff.failures("a") == 4);
  CHECK(backoff.failed("b", t0) == t0 + 5ms);
  CHECK_FALSE(backoff.failed("c", t0).has_value());  // full: dropped
  CHECK(backoff.next_due() == t0 + 5ms);
  CHECK(backoff.take_due(t0 + 4ms).empty());
  CHECK(backoff.take_due(t0 + 20ms) == std::vector<std::string>{"b", "a"});
  CHECK(backoff.waiting() == 0);
  CHECK(backoff.failures("a") == 4);  // taken, not forgotten: the next failure waits longer
  backoff.forget("a");
  CHECK(backoff.failures("a") == 0);
  CHECK(backoff.failed("a", t0) == t0 + 5ms);
}

TEST_CASE("the controller guard reports an escaped exception and logs what was being done",
          "[controllers][barrier]") {
  std::string log;
  {
    LogCapture capture;
    CHECK(apiserver::run_guarded("test: reconcile x", [] {}));
    CHECK_FALSE(apiserver::run_guarded("test: reconcile x",
                                                    [] { throw std::out_of_range("index 7"); }));
    CHECK_FALSE(apiserver::run_guarded("test: reconcile y", [] { throw 42; }));
    log = capture.text();
  }
  CHECK(log.find("internal error in test: reconcile x: index 7\n") != std::string::npos);
  CHECK(log.find("internal error in test: reconcile y: unknown exception\n") !=
        std::string::npos);
}

TEST_CASE("a CRD whose reconcile throws is retried and then established",
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
  std::string log;
  {
    LogCapture capture;
    apiserver::controllers::CrdController controller(
        registry, storage, [&](apiserver::http::Request& r) { return client(r); });
    controller.start();  // the first status write throws on this thread: caught, queued to retry
    REQUIRE(eventually([&] { return client.calls().size() >= 2 && controller.idle(); }));
    log = capture.text();
  }
  const auto calls = client.calls();
  CHECK(calls[0] ==
        "PUT /apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
        "gadgets.example.com/status");
  CHECK(calls[1] == calls[0]);
  const json written = json::parse(client.body(1));
  bool established = false;
  for (const auto& c : written["status"]["conditions"]) {
    established = established || (c["type"] == "Established" && c["status"] == "True");
  }
  CHECK(established);
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
  std::string log;
  {
    LogCapture capture;
    apiserver::controllers::NamespaceDefaultsController controller(
        storage, [&](apiserver::http::Request& r) { return client(r); }, "");
    controller.start();
    REQUIRE(eventually([&] { return client.calls().size() >= 2 && controller.idle(); }));
    log = capture.text();
  }
  const auto calls = client.calls();
  CHECK(calls[0] == "POST /api/v1/namespaces/team/serviceaccounts");
  CHECK(calls[1] == calls[0]);
  CHECK(log.find("namespace defaults controller: reconcile namespace team: injected failure") != std::string::npos);
}

TEST_CASE("a terminating namespace whose spec is not an object is still finalized",
          "[controllers][barrier][namespaces]") {
  auto db = open_store();
  apiserver::storage::Storage storage(*db);
  auto registry = apiserver::registry::Registry::builtin();
  int64_t revision = 0;
  REQUIRE_FALSE(storage.create("/registry/namespaces/odd",
                               json{{"apiVersion", "v1"},
                                    {"kind", "Namespace"},
                                    {"metadata", {{"name", "odd"}}},
                                    {"spec", "not an object"},
                                    {"status", {{"phase", "Terminating"}}}}
                                   .dump(),
                               revision));
  apiserver::controllers::NamespaceController controller(registry, storage);
  controller.enqueue("odd");
  apiserver::storage::Object object;
  CHECK(eventually([&] {
    return storage.get("/registry/namespaces/odd", object).kind ==
           apiserver::storage::ErrorKind::NotFound;
  }));
}
