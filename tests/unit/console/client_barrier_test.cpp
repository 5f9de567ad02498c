// The console's network threads carry on when code they run throws: here the UI's wake-up
// callback, which the request worker and the watch streams run on their own threads.
#include <catch2/catch.hpp>
#include <memory>
#include <stdexcept>

#include "../wake_count.h"
#include "console/client/request_worker.h"
#include "console/client/watch_stream.h"
#include "scripted_server.h"

namespace {

using namespace console_test;
using console::client::StreamMessage;

console::client::ClusterAccess access_to(const ScriptedServer& server) {
  console::client::ClusterAccess access;
  access.context = "test";
  access.server = "https://127.0.0.1:" + std::to_string(server.port());
  access.insecure = true;
  return access;
}

void wake_bug() {
  throw std::runtime_error("wake-up bug");
}

}  // namespace

TEST_CASE("a watch stream whose wake-up callback throws lists again and delivers the next events",
          "[console][client][barrier]") {
  std::atomic<int> watches{0};
  // Wakes the test: the UI's wake-up ran, or the server got the watch it holds.
  auto woken = std::make_shared<testing_support::WakeCount>();
  ScriptedServer server([&](const std::string& target) -> Reply {
    if (target.find("watch=true") == std::string::npos) {
      return {200, table_list("10", {"cm1"}).dump(), false};
    }
    const int n = watches++;
    if (n >= 3) {
      woken->notify();
      return {200, "", true};
    }
    // Each watch brings one new object, then the server ends it.
    return {200, table_event("ADDED", "cm" + std::to_string(n + 2), std::to_string(11 + n)), false};
  });
  console::client::WatchOptions options;
  options.initial_backoff = 5ms;
  options.watch_timeout_seconds = 60;
  // The wake-up throws the first three times it runs, then behaves.
  std::atomic<int> wakes{0};
  console::client::BoundedQueue<StreamMessage> queue(1000, [&] {
    woken->notify();
    if (wakes++ < 3) {
      wake_bug();
    }
  });
  std::vector<StreamMessage> seen;
  {
    console::client::WatchStream stream(
        access_to(server), {"core/configmaps", "/api/v1/configmaps", true, 1}, options, queue);
    // Drain on each wake-up as the UI would, so that pushes find the queue empty and run the
    // throwing wake-up.
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    uint64_t handled = 0;
    while (watches.load() < 4 && woken->wait_past(handled, deadline)) {
      handled = woken->count();
      queue.drain(seen);
    }
  }
  queue.drain(seen);
  CHECK(watches.load() >= 4);
  std::vector<std::string> added;
  bool stopped = false;
  for (const auto& m : seen) {
    if (m.type == StreamMessage::Type::Event && m.event_type == "ADDED") {
      added.push_back(metadata_field(m.item.object, "name"));
    }
    stopped = stopped || (m.type == StreamMessage::Type::State &&
                          m.state == console::client::StreamState::Stopped);
  }
  CHECK(added == std::vector<std::string>{"cm2", "cm3", "cm4"});
  CHECK(stopped);
}

TEST_CASE("a request worker whose wake-up callback throws still answers every request",
          "[console][client][barrier]") {
  ScriptedServer server([&](const std::string& target) -> Reply {
    return {200, json{{"target", target}}.dump(), false};
  });
  console::client::ClientOptions options;
  options.timeout = 10s;
  auto replied = std::make_shared<testing_support::WakeCount>();
  console::client::RequestWorker worker(access_to(server), options, 8, [replied] {
    replied->notify();
    wake_bug();
  });
  std::vector<console::client::ApiReply> replies;
  for (const char* target : {"/version", "/api"}) {
    console::client::Request request;
    request.target = target;
    const uint64_t seen = replied->count();
    REQUIRE(worker.submit(request) != 0);
    REQUIRE(replied->wait_past(seen, std::chrono::steady_clock::now() + 10s));
    worker.drain(replies);
  }
  REQUIRE(replies.size() == 2);
  CHECK(replies[0].sent);
  CHECK(replies[0].response.body == R"({"target":"/version"})");
  CHECK(replies[1].sent);
  CHECK(replies[1].response.body == R"({"target":"/api"})");
}

TEST_CASE("a watch event whose Table row is not an object is an error, not a crash",
          "[console][client][barrier]") {
  const json bad = {
      {"type", "ADDED"},
      {"object", {{"kind", "Table"}, {"apiVersion", "meta.k8s.io/v1"}, {"rows", {5}}}}};
  const auto event = console::client::decode_event(bad.dump());
  REQUIRE_FALSE(event.ok());
  CHECK(event.error() == "a watch event's Table row is not an object");
}
