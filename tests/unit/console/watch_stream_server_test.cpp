// WatchStream against a scripted HTTPS server in the test: list, watch, resume after the server
// ends a watch, relist after 410 Gone, back off after a failure.
#include <catch2/catch.hpp>
#include <future>

#include "console/client/watch_stream.h"
#include "scripted_server.h"

namespace {

using namespace console_test;
using console::client::StreamMessage;
using console::client::StreamState;

}  // namespace

TEST_CASE("a watch stream lists, resumes where the server left off, and relists after 410 Gone",
          "[console][client][watch]") {
  std::atomic<int> lists{0};
  std::atomic<int> watches{0};
  std::promise<void> fourth_watch;  // the stream is waiting for the held watch's answer
  ScriptedServer server([&](const std::string& target) -> Reply {
    if (target.find("watch=true") == std::string::npos) {
      return {200, table_list(lists++ == 0 ? "10" : "20", {"cm1"}).dump(), false};
    }
    switch (watches++) {
      case 0: {  // two events, then the server ends the watch (its timeoutSeconds)
        const json bookmark = {
            {"type", "BOOKMARK"},
            {"object", {{"kind", "ConfigMap"}, {"metadata", {{"resourceVersion", "15"}}}}}};
        return {200, table_event("ADDED", "cm2", "11") + bookmark.dump() + "\n", false};
      }
      case 1: {  // the version was compacted
        const json gone = {{"type", "ERROR"},
                           {"object",
                            {{"kind", "Status"},
                             {"code", 410},
                             {"reason", "Expired"},
                             {"message", "too old resource version: 15 (16)"}}}};
        return {200, gone.dump() + "\n", false};
      }
      case 2:
        return {500, R"({"kind":"Status","reason":"InternalError","message":"boom"})", false};
      case 3:
        fourth_watch.set_value();
        return {200, "", true};
      default:
        return {200, "", true};
    }
  });

  console::client::ClusterAccess access;
  access.context = "test";
  access.server = "https://127.0.0.1:" + std::to_string(server.port());
  access.insecure = true;
  console::client::WatchOptions options;
  options.initial_backoff = 20ms;
  options.watch_timeout_seconds = 60;
  console::client::BoundedQueue<StreamMessage> queue(1000);
  std::vector<StreamMessage> seen;
  {
    console::client::WatchStream stream(access, {"core/configmaps", "/api/v1/configmaps", true, 3},
                                        options, queue);
    REQUIRE(fourth_watch.get_future().wait_for(20s) == std::future_status::ready);
  }
  queue.drain(seen);

  const std::vector<std::string> expected_targets = {
      "/api/v1/configmaps?includeObject=Object",
      "/api/v1/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=60"
      "&resourceVersion=10&includeObject=Object",
      "/api/v1/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=60"
      "&resourceVersion=15&includeObject=Object",
      "/api/v1/configmaps?includeObject=Object",
      "/api/v1/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=60"
      "&resourceVersion=20&includeObject=Object",
      "/api/v1/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=60"
      "&resourceVersion=20&includeObject=Object",
  };
  CHECK(server.targets() == expected_targets);

  std::vector<std::string> story;
  for (const auto& m : seen) {
    CHECK(m.stream_id == 3);
    switch (m.type) {
      case StreamMessage::Type::Listed:
        story.push_back("listed " + m.resource_version + " rows " + std::to_string(m.rows.size()));
        break;
      case StreamMessage::Type::Event:
        story.push_back(m.event_type + " " + metadata_field(m.item.object, "name") + " " +
                        metadata_field(m.item.object, "resourceVersion"));
        break;
      case StreamMessage::Type::State:
        story.push_back(std::string(console::client::to_string(m.state)) +
                        (m.error.empty() ? "" : ": " + m.error));
        break;
    }
  }
  const std::vector<std::string> expected_story = {
      "listing",          "listed 10 rows 1",
      "watching",         "ADDED cm2 11",
      "BOOKMARK  15",     "watching",
      "ERROR  ",          "listing",
      "listed 20 rows 1", "retrying: watch /api/v1/configmaps: HTTP 500 InternalError: boom",
      "stopped",  // the last watch never got its response header: stopped while waiting
  };
  CHECK(story == expected_story);
}
