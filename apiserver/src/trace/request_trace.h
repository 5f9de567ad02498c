// The trace of one API request: what each stage of the pipeline decided and how long it took,
// and what the layers under the handler did for it (the storage keys read and written, with their
// revisions). The pipeline starts one per request and keeps the last ones in a TraceLog, which
// GET /debug/requests serves (endpoints/debug_requests) and `serve -v 2` summarizes in one log
// line per request. Plain data: any layer may include this header.
//
// Deeper layers do not get the trace passed down: while a thread serves a request, a Scope makes
// that request's trace the thread's current one, and note() adds to it (and does nothing on a
// thread that serves no request, such as a controller's).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace apiserver::trace {

// One pipeline stage as the request passed it. `stage` names a stage of the server's pipeline,
// which lives as long as the server.
struct Step {
  std::string_view stage;
  std::string decision;
  std::chrono::nanoseconds took{0};
};

// Something a layer under the pipeline did for the request; `layer` is a string literal.
struct Note {
  std::string_view layer;
  std::string text;
};

struct RequestTrace {
  uint64_t id = 0;
  std::chrono::system_clock::time_point received;
  std::string method;
  std::string target;  // path and query as sent
  // From the request info and authentication stages, once they ran.
  std::string user;
  std::vector<std::string> groups;
  std::string verb;
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  std::string namespace_;
  std::string name;
  int code = 0;
  std::chrono::nanoseconds took{0};
  std::vector<Step> steps;
  std::vector<Note> notes;
  // Audit annotations the layers under the pipeline added (admission plugins' and webhooks'):
  // the request's audit event carries them.
  std::vector<std::pair<std::string, std::string>> audit_annotations;

  // One line: id, who, what, the answer and time, each stage's decision, the notes.
  std::string summary() const;
};

// Makes `trace` the current thread's trace until destroyed (the previous one comes back).
class Scope {
 public:
  explicit Scope(RequestTrace& trace);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  RequestTrace* previous_;
};

// True while the current thread serves a traced request: callers skip building a note's text
// otherwise.
bool active();
// Adds a note to the current thread's trace, if there is one. At most kMaxNotes are kept.
// `layer` must be a string literal.
void note(std::string_view layer, std::string text);
inline constexpr size_t kMaxNotes = 64;
// Adds an audit annotation to the current thread's trace, if there is one (at most
// kMaxAuditAnnotations are kept).
void annotate_audit(std::string key, std::string value);
inline constexpr size_t kMaxAuditAnnotations = 64;

// The last `capacity` traces. Thread-safe, and built for many request threads adding at once:
// a trace goes into the slot its id picks (id modulo capacity), each slot with a lock of its own,
// so two requests contend only when their ids are `capacity` apart.
class TraceLog {
 public:
  explicit TraceLog(size_t capacity = 200);

  // The next request id (1, 2, ...).
  uint64_t next_id() { return ++last_id_; }
  // Keeps `trace` (its id from next_id()) in place of the one `capacity` ids older.
  void add(RequestTrace trace);

  // Which traces list() returns: every non-empty field must match exactly; at most `limit` of
  // the newest, oldest first.
  struct Filter {
    std::string user;
    std::string verb;
    std::string resource;
    std::string name;
    size_t limit = 0;  // 0: all that are kept
  };
  std::vector<RequestTrace> list(const Filter& filter) const;
  size_t capacity() const { return capacity_; }

 private:
  struct Slot {
    mutable std::mutex mu;
    RequestTrace trace;  // id 0: empty
  };
  const size_t capacity_;
  std::unique_ptr<Slot[]> slots_;
  std::atomic<uint64_t> last_id_{0};
};

}  // namespace apiserver::trace
