// The console's log of watch events: bounded, oldest dropped first, with a count of what was
// dropped so the UI can say so. Pure state: no ImGui, no network. Not thread-safe: the UI thread
// owns it and feeds it from the queue it drains each frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace console::model {

struct LoggedEvent {
  int64_t received_unix_ms = 0;
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string resource_version;
  std::string kind_key;  // "core/configmaps": the kind whose cache holds the object's versions
  // DELETED only (the cache forgets a deleted object): the object as deleted and the version the
  // cache held before, so that the event's history can still be shown. Null otherwise.
  std::shared_ptr<const nlohmann::json> deleted_object;
  std::shared_ptr<const nlohmann::json> previous_object;
};

// Which logged events the watch window lists: those of a type not hidden, of the chosen kind and
// in the chosen namespace (empty: any).
struct EventFilter {
  std::set<std::string, std::less<>> hidden_types = {"BOOKMARK"};
  std::string kind;
  std::string namespace_;

  bool matches(const LoggedEvent& event) const;
};

class EventLog {
 public:
  explicit EventLog(size_t capacity);

  // Appends, dropping the oldest entry when full. While paused, events still arrive and are kept
  // (within capacity) but the visible view does not move; see visible_size().
  void append(LoggedEvent event);
  void set_paused(bool paused);
  bool paused() const { return paused_; }

  size_t size() const { return events_.size(); }
  size_t capacity() const { return capacity_; }
  uint64_t dropped() const { return dropped_; }
  // Entries the UI shows: everything while live; the entries held when paused, while paused.
  size_t visible_size() const;
  const LoggedEvent& at(size_t index) const { return events_.at(index); }
  // The kinds and the namespaces of the entries kept, each once, sorted: a filter's choices.
  // Cluster-scoped objects have no namespace and add none.
  std::vector<std::string> kinds() const;
  std::vector<std::string> namespaces() const;

 private:
  size_t capacity_;
  std::deque<LoggedEvent> events_;
  uint64_t dropped_ = 0;
  bool paused_ = false;
  size_t visible_when_paused_ = 0;
};

}  // namespace console::model
