#include "console/model/event_log.h"

#include <algorithm>

namespace console::model {

bool EventFilter::matches(const LoggedEvent& event) const {
  return hidden_types.count(event.type) == 0 && (kind.empty() || event.kind == kind) &&
         (namespace_.empty() || event.namespace_ == namespace_);
}

std::vector<std::string> EventLog::kinds() const {
  std::set<std::string> seen;
  for (const auto& e : events_) {
    seen.insert(e.kind);
  }
  return {seen.begin(), seen.end()};
}

std::vector<std::string> EventLog::namespaces() const {
  std::set<std::string> seen;
  for (const auto& e : events_) {
    if (!e.namespace_.empty()) {
      seen.insert(e.namespace_);
    }
  }
  return {seen.begin(), seen.end()};
}

EventLog::EventLog(size_t capacity) : capacity_(std::max<size_t>(capacity, 1)) {}

void EventLog::append(LoggedEvent event) {
  if (events_.size() == capacity_) {
    events_.pop_front();
    ++dropped_;
    if (paused_ && visible_when_paused_ > 0) {
      --visible_when_paused_;
    }
  }
  events_.push_back(std::move(event));
}

void EventLog::set_paused(bool paused) {
  if (paused && !paused_) {
    visible_when_paused_ = events_.size();
  }
  paused_ = paused;
}

size_t EventLog::visible_size() const {
  return paused_ ? std::min(visible_when_paused_, events_.size()) : events_.size();
}

}  // namespace console::model
