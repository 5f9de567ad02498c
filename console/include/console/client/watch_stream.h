// Watch streams: for each resource kind the console shows, a background thread that keeps the
// UI's copy current the way kubectl get --watch does.
//
//   LIST  GET <path>?includeObject=Object            Accept: a meta.k8s.io/v1 Table, else JSON
//   WATCH GET <path>?watch=true&resourceVersion=<rv>&allowWatchBookmarks=true&timeoutSeconds=N
//
// The list's resourceVersion starts the watch; each event moves it on. When the server ends the
// watch (timeoutSeconds) the stream resumes from the last resourceVersion at once; when the
// connection fails it resumes after an exponential backoff; when the server says 410 Gone (the
// version was compacted) it lists again. Everything goes to the UI thread as StreamMessages
// through a BoundedQueue. If the queue is full an event is lost, so the stream stops watching and
// lists again: the UI is never left with a copy that silently missed a change.
//
// Every request has a deadline (the list: `request_timeout`; the watch: timeoutSeconds plus a
// margin) and a size limit (the list: `max_list_bytes`; the watch: `max_event_bytes` per event).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/result.h"
#include "console/client/bounded_queue.h"
#include "console/client/rest_client.h"

namespace console::client {

// Splits a byte stream of concatenated JSON objects (a watch body: one event after another,
// usually newline-separated) into the texts of whole objects, whatever the chunk boundaries.
// Not thread-safe.
class JsonFramer {
 public:
  explicit JsonFramer(size_t max_frame_bytes) : max_frame_bytes_(max_frame_bytes) {}

  // Appends the whole objects completed by `bytes` to `frames`. The error when an object grows
  // past the limit or something other than whitespace or an object comes between objects (the
  // framer is then unusable); nullopt otherwise.
  [[nodiscard]] std::optional<std::string> feed(std::string_view bytes,
                                                std::vector<std::string>& frames);
  // Bytes of an unfinished object held back.
  size_t pending() const { return current_.size(); }

 private:
  size_t max_frame_bytes_;
  std::string current_;
  int depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
};

// The wait before each retry: `initial`, doubling up to `max`; reset() after a success.
class Backoff {
 public:
  Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max)
      : initial_(initial), max_(max), next_(initial) {}
  std::chrono::milliseconds next();
  void reset() { next_ = initial_; }

 private:
  std::chrono::milliseconds initial_;
  std::chrono::milliseconds max_;
  std::chrono::milliseconds next_;
};

struct WatchTarget {
  std::string key;    // names the stream in its messages, e.g. "core/configmaps"
  std::string path;   // the collection in every namespace, e.g. "/api/v1/configmaps"
  bool table = true;  // ask for meta.k8s.io/v1 Tables (the server's columns), as kubectl get does
  uint64_t stream_id = 0;  // copied into every message, to tell a reopened stream from the old
};

struct WatchOptions {
  std::chrono::milliseconds request_timeout{std::chrono::seconds(60)};  // connect + LIST
  int watch_timeout_seconds = 300;                                      // asked of the server
  std::chrono::milliseconds watch_margin{std::chrono::seconds(30)};     // added to it locally
  size_t max_list_bytes = 512 * 1024 * 1024;
  size_t max_event_bytes = 16 * 1024 * 1024;
  std::chrono::milliseconds initial_backoff{std::chrono::milliseconds(250)};
  std::chrono::milliseconds max_backoff{std::chrono::seconds(30)};
  std::string user_agent = "kube-sandbox-console";
};

enum class StreamState {
  Listing,   // a LIST is in flight
  Watching,  // the watch is open
  Retrying,  // the last attempt failed; the next one comes after `retry_in_ms`
  Stopped,
};

const char* to_string(StreamState state);

// One object and, when the server sent a Table, its row.
struct TableRowData {
  nlohmann::json object;
  nlohmann::json cells;  // the row's cells; null without a Table
};

struct StreamMessage {
  enum class Type { Listed, Event, State };
  Type type = Type::State;
  std::string key;         // the WatchTarget's
  uint64_t stream_id = 0;  // the WatchTarget's

  // Listed: the whole collection as of `resource_version`.
  nlohmann::json columns;  // the Table's columnDefinitions; null when the server sent a list
  std::vector<TableRowData> rows;
  std::string resource_version;

  // Event: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR; `item.object` is the object (a Status
  // for ERROR) taken out of its one-row Table.
  std::string event_type;
  TableRowData item;

  // State
  StreamState state = StreamState::Listing;
  std::string error;  // why the stream is Retrying
  int64_t retry_in_ms = 0;
  // The HTTP status of the refusal behind `error` (403: the user may not list or watch the
  // target; `error` is then the server's Status message as it worded it); 0 for other failures.
  int http_status = 0;
};

// The LIST query and the WATCH query of a target.
std::string list_query(const WatchTarget& target);
std::string watch_query(const WatchTarget& target, const std::string& resource_version,
                        int timeout_seconds);
// The Accept header for a target's requests.
std::string accept_header(const WatchTarget& target);

// A LIST response body (a Table or a plain list) as a Listed message (without key or stream_id);
// the error when it is not JSON or not shaped like either.
common::Result<StreamMessage> decode_list(std::string_view body);
// One watch event as an Event message (without key or stream_id); the error when it is not an
// event.
common::Result<StreamMessage> decode_event(std::string_view text);
// "reason: message" of a Status body, or the first bytes of any other body.
std::string status_text(int http_status, std::string_view body);
// How a refusal is shown: for a 401 or 403 with a Status body, its message as the server worded
// it (`pods is forbidden: User "alice" cannot list resource "pods" ...`); else status_text().
std::string refusal_text(int http_status, std::string_view body);

class WatchStream {
 public:
  // Starts the stream's thread. `out` must outlive the stream.
  WatchStream(ClusterAccess access, WatchTarget target, WatchOptions options,
              BoundedQueue<StreamMessage>& out);
  // Stops the thread and waits for it (at most about one poll interval, ~100 ms).
  ~WatchStream();
  WatchStream(const WatchStream&) = delete;
  WatchStream& operator=(const WatchStream&) = delete;

  // Asks the thread to stop; returns at once. Safe from any thread.
  void stop();
  // True once the thread has ended (after stop(), within ~100 ms): destroying it will not wait.
  bool finished() const { return finished_.load(); }
  const WatchTarget& target() const { return target_; }

 private:
  enum class WatchEnd { Closed, Expired, Overflow, Failed, Stopped };
  struct WatchOutcome {
    WatchEnd end;
    std::string error;    // why, for Expired, Overflow and Failed
    int http_status = 0;  // the server's refusal, when it refused the watch
  };

  void run();
  // One round: a LIST when `need_list`, then one WATCH; false once the stream is to stop. An
  // exception escaping it is caught by run(), which retries with a fresh LIST.
  bool round(Backoff& backoff, std::string& resource_version, bool& need_list);
  // Posts Retrying and waits the backoff's next delay; false when stopped meanwhile.
  bool retry(Backoff& backoff, const std::string& error, int http_status = 0);
  // The LIST as a Listed message, or why it failed (`http_status`: the server's refusal, if so).
  common::Result<StreamMessage> list(int& http_status);
  // One WATCH from `resource_version`, which each event moves on; `started` once the server
  // answered 200.
  WatchOutcome watch(std::string& resource_version, bool& started);
  void post_state(StreamState state, std::string error = {}, int64_t retry_in_ms = 0,
                  int http_status = 0);
  // Waits `delay` unless stopped first; false when stopped.
  bool pause(std::chrono::milliseconds delay);

  const ClusterAccess access_;
  const WatchTarget target_;
  const WatchOptions options_;
  BoundedQueue<StreamMessage>& out_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> finished_{false};
  std::mutex pause_mu_;  // protects nothing but the wait of pause(); stop() notifies under it
  std::condition_variable pause_cv_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace console::client
