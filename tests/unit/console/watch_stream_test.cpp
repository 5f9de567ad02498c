#include "console/client/watch_stream.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../wake_count.h"
#include "console/client/bounded_queue.h"
#include "console/client/request_worker.h"

using console::client::Backoff;
using console::client::BoundedQueue;
using console::client::ClusterAccess;
using console::client::JsonFramer;
using console::client::StreamMessage;
using console::client::StreamState;
using console::client::WatchOptions;
using console::client::WatchStream;
using console::client::WatchTarget;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// A TCP port on 127.0.0.1 that accepts connections (the kernel's backlog) but never answers:
// requests to it hang until their deadline or a cancel.
struct SilentPort {
  int fd = -1;
  int port = 0;
  SilentPort() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(fd, 16) == 0);
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    port = ntohs(address.sin_port);
  }
  ~SilentPort() { ::close(fd); }
};

// A port nothing listens on: connecting is refused at once.
int closed_port() {
  SilentPort taken;
  return taken.port;  // closed again when `taken` goes
}

ClusterAccess access_to(int port) {
  ClusterAccess access;
  access.context = "test";
  access.server = "https://127.0.0.1:" + std::to_string(port);
  access.insecure = true;
  return access;
}

// Takes messages from `queue` (blocking on it) into `seen` until `done` holds for one or `limit`
// passes.
template <class Done>
bool wait_for_message(BoundedQueue<StreamMessage>& queue, std::vector<StreamMessage>& seen,
                      Done done, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left <= 0ms) {
      return false;
    }
    auto message = queue.pop_wait(left);
    if (!message) {
      return false;
    }
    seen.push_back(std::move(*message));
    if (done(seen.back())) {
      return true;
    }
  }
}

}  // namespace

TEST_CASE("the framer splits a watch body into whole events whatever the chunks",
          "[console][client][watch]") {
  const std::string body =
      "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a}\\\"{\"}}}\n"
      "{\"type\":\"MODIFIED\",\"object\":{\"data\":[1,{\"k\":\"[\"}]}}\n";
  const size_t chunk = GENERATE(1, 2, 7, 64, 1000);
  CAPTURE(chunk);
  JsonFramer framer(1024);
  std::vector<std::string> frames;
  for (size_t i = 0; i < body.size(); i += chunk) {
    REQUIRE_FALSE(framer.feed(std::string_view(body).substr(i, chunk), frames));
  }
  REQUIRE(frames.size() == 2);
  CHECK(json::parse(frames[0])["object"]["metadata"]["name"] == "a}\"{");
  CHECK(json::parse(frames[1])["object"]["data"][1]["k"] == "[");
  CHECK(framer.pending() == 0);
}

TEST_CASE("the framer refuses an oversized event and junk between events",
          "[console][client][watch]") {
  std::vector<std::string> frames;
  SECTION("oversized") {
    JsonFramer framer(16);
    CHECK(framer.feed("{\"type\":\"ADDED\",\"object\":{}}", frames) ==
          "watch stream: an event is larger than 16 bytes");
  }
  SECTION("junk") {
    JsonFramer framer(1024);
    CHECK(framer.feed("{}\nnull", frames) == "watch stream: unexpected 'n' between events");
    CHECK(frames.size() == 1);
  }
}

TEST_CASE("backoff doubles up to its cap and starts over after a success",
          "[console][client][watch]") {
  Backoff backoff(250ms, 1s);
  CHECK(backoff.next() == 250ms);
  CHECK(backoff.next() == 500ms);
  CHECK(backoff.next() == 1000ms);
  CHECK(backoff.next() == 1000ms);
  backoff.reset();
  CHECK(backoff.next() == 250ms);
}

TEST_CASE("list and watch queries ask for Tables with the objects, as kubectl get does",
          "[console][client][watch]") {
  WatchTarget target{"apps/deployments", "/apis/apps/v1/deployments", true, 0};
  CHECK(console::client::list_query(target) == "/apis/apps/v1/deployments?includeObject=Object");
  CHECK(console::client::watch_query(target, "41", 300) ==
        "/apis/apps/v1/deployments?watch=true&allowWatchBookmarks=true&timeoutSeconds=300"
        "&resourceVersion=41&includeObject=Object");
  CHECK(console::client::accept_header(target) ==
        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  target.table = false;
  CHECK(console::client::list_query(target) == "/apis/apps/v1/deployments");
  CHECK(console::client::accept_header(target) == "application/json");
}

TEST_CASE("a Table list decodes to rows with their objects and cells", "[console][client][watch]") {
  const json table = {
      {"kind", "Table"},
      {"apiVersion", "meta.k8s.io/v1"},
      {"metadata", {{"resourceVersion", "17"}}},
      {"columnDefinitions", {{{"name", "Name"}, {"type", "string"}, {"format", "name"}}}},
      {"rows",
       {{{"cells", {"cm1"}},
         {"object", {{"kind", "ConfigMap"}, {"metadata", {{"name", "cm1"}}}}}}}}};
  const auto decoded = console::client::decode_list(table.dump());
  REQUIRE(decoded.ok());
  const StreamMessage& message = *decoded;
  CHECK(message.type == StreamMessage::Type::Listed);
  CHECK(message.resource_version == "17");
  CHECK(message.columns.size() == 1);
  REQUIRE(message.rows.size() == 1);
  CHECK(message.rows[0].object["metadata"]["name"] == "cm1");
  CHECK(message.rows[0].cells == json{"cm1"});
}

TEST_CASE("a plain list decodes with kind and apiVersion put back on its items",
          "[console][client][watch]") {
  const json list = {{"kind", "ConfigMapList"},
                     {"apiVersion", "v1"},
                     {"metadata", {{"resourceVersion", "9"}}},
                     {"items", {{{"metadata", {{"name", "a"}}}}}}};
  const auto decoded = console::client::decode_list(list.dump());
  REQUIRE(decoded.ok());
  const StreamMessage& message = *decoded;
  CHECK(message.columns.is_null());
  REQUIRE(message.rows.size() == 1);
  CHECK(message.rows[0].object["kind"] == "ConfigMap");
  CHECK(message.rows[0].object["apiVersion"] == "v1");
  CHECK(message.rows[0].cells.is_null());
}

TEST_CASE("malformed lists are refused with a reason", "[console][client][watch]") {
  const auto not_json = console::client::decode_list("nope");
  REQUIRE_FALSE(not_json.ok());
  CHECK(not_json.error() == "the list response is not a JSON object");
  const json rows_without_objects = {{"kind", "Table"},
                                     {"apiVersion", "meta.k8s.io/v1"},
                                     {"columnDefinitions", json::array()},
                                     {"rows", {{{"cells", {"x"}}}}}};
  const auto no_objects = console::client::decode_list(rows_without_objects.dump());
  REQUIRE_FALSE(no_objects.ok());
  CHECK(no_objects.error() ==
        "a Table row carries no object (includeObject=Object was not honoured)");
}

TEST_CASE("watch events decode out of their one-row Tables", "[console][client][watch]") {
  SECTION("a Table event") {
    const json event = {
        {"type", "MODIFIED"},
        {"object",
         {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"rows", {{{"cells", {"cm1", 2}}, {"object", {{"metadata", {{"name", "cm1"}}}}}}}}}}};
    const auto message = console::client::decode_event(event.dump());
    REQUIRE(message.ok());
    CHECK(message->event_type == "MODIFIED");
    CHECK(message->item.object["metadata"]["name"] == "cm1");
    CHECK(message->item.cells == json{"cm1", 2});
  }
  SECTION("a plain BOOKMARK") {
    const json event = {
        {"type", "BOOKMARK"},
        {"object", {{"kind", "ConfigMap"}, {"metadata", {{"resourceVersion", "88"}}}}}};
    const auto message = console::client::decode_event(event.dump());
    REQUIRE(message.ok());
    CHECK(message->item.object["metadata"]["resourceVersion"] == "88");
    CHECK(message->item.cells.is_null());
  }
  SECTION("an ERROR Status") {
    const json event = {{"type", "ERROR"},
                        {"object", {{"kind", "Status"}, {"code", 410}, {"reason", "Expired"}}}};
    const auto message = console::client::decode_event(event.dump());
    REQUIRE(message.ok());
    CHECK(message->item.object["code"] == 410);
  }
  SECTION("not an event") {
    const auto message = console::client::decode_event("{\"type\":\"ADDED\"}");
    REQUIRE_FALSE(message.ok());
    CHECK(message.error() == "a watch event lacks its type or object");
  }
}

TEST_CASE("status_text reads a Status, else shows the body", "[console][client][watch]") {
  CHECK(console::client::status_text(
            403, R"({"kind":"Status","reason":"Forbidden","message":"no list for you"})") ==
        "HTTP 403 Forbidden: no list for you");
  CHECK(console::client::status_text(502, "bad\ngateway") == "HTTP 502: bad gateway");
  CHECK(console::client::status_text(500, "") == "HTTP 500");
}

TEST_CASE("a stream that cannot connect retries with growing waits and stops promptly",
          "[console][client][watch]") {
  BoundedQueue<StreamMessage> queue(100);
  WatchOptions options;
  options.initial_backoff = 20ms;
  options.max_backoff = 80ms;
  std::vector<StreamMessage> seen;
  {
    auto stream = std::make_unique<WatchStream>(
        access_to(closed_port()), WatchTarget{"core/configmaps", "/api/v1/configmaps", true, 7},
        options, queue);
    int retries = 0;
    REQUIRE(wait_for_message(queue, seen, [&](const StreamMessage& m) {
      return m.type == StreamMessage::Type::State && m.state == StreamState::Retrying &&
             ++retries == 3;
    }));
    const auto start = std::chrono::steady_clock::now();
    stream->stop();
    REQUIRE(wait_for_message(queue, seen, [](const StreamMessage& m) {
      return m.type == StreamMessage::Type::State && m.state == StreamState::Stopped;
    }));
    // Stopped is posted just before the thread ends (finished() may lag it): join it.
    stream.reset();
    CHECK(std::chrono::steady_clock::now() - start < 2s);
  }
  std::vector<int64_t> waits;
  for (const auto& m : seen) {
    CHECK(m.key == "core/configmaps");
    CHECK(m.stream_id == 7);
    if (m.state == StreamState::Retrying) {
      CHECK(m.error.find("connecting to https://127.0.0.1:") == 0);
      waits.push_back(m.retry_in_ms);
    }
  }
  REQUIRE(waits.size() >= 3);
  CHECK(waits[0] == 20);
  CHECK(waits[1] == 40);
  CHECK(waits[2] == 80);
}

TEST_CASE("a stream stuck on a silent server stops within a poll interval",
          "[console][client][watch]") {
  SilentPort silent;
  BoundedQueue<StreamMessage> queue(100);
  std::vector<StreamMessage> seen;
  auto stream = std::make_unique<WatchStream>(access_to(silent.port),
                                              WatchTarget{"core/pods", "/api/v1/pods", true, 1},
                                              WatchOptions{}, queue);
  REQUIRE(wait_for_message(queue, seen, [](const StreamMessage& m) {
    return m.type == StreamMessage::Type::State && m.state == StreamState::Listing;
  }));
  const auto start = std::chrono::steady_clock::now();
  stream.reset();  // stop and join
  CHECK(std::chrono::steady_clock::now() - start < 2s);
}

TEST_CASE("the request worker answers every request and refuses more than its capacity",
          "[console][client][worker]") {
  SECTION("a refused connection is a reply with the transport error") {
    auto replied = std::make_shared<testing_support::WakeCount>();
    console::client::RequestWorker worker(access_to(closed_port()), {}, 4,
                                          [replied] { replied->notify(); });
    console::client::Request request;
    request.target = "/version";
    const uint64_t seen = replied->count();
    const uint64_t id = worker.submit(request);
    REQUIRE(id != 0);
    REQUIRE(replied->wait_past(seen, std::chrono::steady_clock::now() + 10s));
    std::vector<console::client::ApiReply> replies;
    worker.drain(replies);
    REQUIRE(replies.size() == 1);
    CHECK(replies[0].id == id);
    CHECK_FALSE(replies[0].sent);
    CHECK(replies[0].error.find("connecting to https://127.0.0.1:") == 0);
    CHECK(worker.in_flight() == 0);
  }
  SECTION("a silent server: the capacity fills, and the destructor cancels") {
    SilentPort silent;
    const auto start = std::chrono::steady_clock::now();
    {
      console::client::RequestWorker worker(access_to(silent.port), {}, 2);
      console::client::Request request;
      request.target = "/version";
      CHECK(worker.submit(request) != 0);
      CHECK(worker.submit(request) != 0);
      CHECK(worker.submit(request) == 0);
      CHECK(worker.in_flight() == 2);
    }
    CHECK(std::chrono::steady_clock::now() - start < 3s);
  }
}

TEST_CASE("the bounded queue drops and counts when full, and never blocks a producer",
          "[console][client]") {
  BoundedQueue<int> queue(2);
  CHECK(queue.try_push(1));
  CHECK(queue.try_push(2));
  CHECK_FALSE(queue.try_push(3));
  CHECK(queue.dropped() == 1);
  std::vector<int> out;
  CHECK(queue.drain(out, 1) == 1);
  CHECK(queue.try_push(4));
  CHECK(queue.drain(out) == 2);
  CHECK(out == std::vector<int>{1, 2, 4});
  CHECK_FALSE(queue.pop_wait(1ms).has_value());
  queue.try_push(5);
  queue.close();
  CHECK_FALSE(queue.try_push(6));
  CHECK(queue.pop_wait(1ms) == 5);
  CHECK_FALSE(queue.pop_wait(1s).has_value());  // closed: returns at once
}

TEST_CASE("the bounded queue wakes its consumer once per batch", "[console][client]") {
  int wakes = 0;
  BoundedQueue<int> queue(10, [&] { ++wakes; });
  queue.try_push(1);
  queue.try_push(2);
  CHECK(wakes == 1);
  std::vector<int> out;
  queue.drain(out);
  queue.try_push(3);
  CHECK(wakes == 2);
}
