// Watch API, shaped like etcd's Watch service (WatchCreateRequest / WatchResponse).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "store/types.h"

namespace store {

struct WatchRequest {
  std::string key;
  std::string range_end;       // same conventions as RangeRequest
  Revision start_revision = 0;  // <= 0: from the next revision; else replay history from it
  bool progress_notify = false;  // periodic empty responses while idle (Options interval)
  bool no_put = false;           // filter out put events
  bool no_delete = false;        // filter out delete events
  bool prev_kv = false;          // attach the previous key-value to each event
};

struct WatchResponse {
  ResponseHeader header;  // for events: the revision of the events; else the store revision
  int64_t watch_id = 0;
  bool created = false;   // the first response of every watch
  bool canceled = false;  // the last response of a watch that ended
  Revision compact_revision = 0;  // set when canceled because start_revision was compacted
  std::string cancel_reason;
  std::vector<Event> events;  // all events of one revision arrive in the same response

  bool is_progress_notify() const { return !created && !canceled && events.empty(); }
};

// One watch. Responses are queued in a bounded buffer that the store fills and the owner drains;
// the store never waits for a watcher. A watcher whose buffer is full is cancelled with a
// cancel_reason that names the revision to resume from (last delivered revision + 1).
// Thread-safe: any thread may call any method.
class Watcher {
 public:
  virtual ~Watcher() = default;

  virtual int64_t id() const = 0;

  // Pops the next response, waiting up to `timeout`. Returns false on timeout or when the watch
  // has ended and every response was taken (then finished() is true).
  virtual bool next(WatchResponse& out, std::chrono::milliseconds timeout) = 0;
  // Pops without waiting.
  virtual bool try_next(WatchResponse& out) = 0;

  // Called (from a store thread, without store locks held) whenever a response is queued.
  // Keep it short: post work elsewhere. Set it before draining; it may fire at once. An
  // exception it throws is written to stderr and dropped; the watch goes on.
  virtual void set_notify(std::function<void()> notify) = 0;

  // Asks for a progress notification: an empty response whose header revision is the store
  // revision, queued once every event up to that revision was queued.
  virtual void request_progress() = 0;

  // Ends the watch; a final response with canceled=true is queued.
  virtual void cancel() = 0;

  // True once the watch ended and its responses were all taken.
  virtual bool finished() const = 0;
};

}  // namespace store
