#include "console/model/event_log.h"

#include <algorithm>

namespace console::model {

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
