#include "controllers/retry_backoff.h"

#include <algorithm>

namespace apiserver::controllers {

RetryBackoff::RetryBackoff(std::chrono::milliseconds base, std::chrono::milliseconds max,
                           size_t capacity)
    : base_(base), max_(std::max(base, max)), capacity_(capacity) {}

std::optional<RetryBackoff::Clock::time_point> RetryBackoff::failed(const std::string& key,
                                                                    Clock::time_point now) {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    if (entries_.size() >= capacity_) {
      return std::nullopt;
    }
    it = entries_.emplace(key, Entry{}).first;
  }
  Entry& entry = it->second;
  // base·2^failures without overflow: doubling stops once the cap is reached.
  std::chrono::milliseconds delay = base_;
  for (int i = 0; i < entry.failures && delay < max_; ++i) {
    delay *= 2;
  }
  delay = std::min(delay, max_);
  ++entry.failures;
  entry.due = now + delay;
  return entry.due;
}

void RetryBackoff::forget(const std::string& key) {
  entries_.erase(key);
}

std::vector<std::string> RetryBackoff::take_due(Clock::time_point now) {
  std::vector<std::pair<Clock::time_point, std::string>> due;
  for (auto& [key, entry] : entries_) {
    if (entry.due && *entry.due <= now) {
      due.emplace_back(*entry.due, key);
      entry.due.reset();
    }
  }
  std::sort(due.begin(), due.end());
  std::vector<std::string> keys;
  keys.reserve(due.size());
  for (auto& [when, key] : due) {
    keys.push_back(std::move(key));
  }
  return keys;
}

std::optional<RetryBackoff::Clock::time_point> RetryBackoff::next_due() const {
  std::optional<Clock::time_point> earliest;
  for (const auto& [key, entry] : entries_) {
    if (entry.due && (!earliest || *entry.due < *earliest)) {
      earliest = entry.due;
    }
  }
  return earliest;
}

size_t RetryBackoff::waiting() const {
  return static_cast<size_t>(std::count_if(entries_.begin(), entries_.end(),
                                           [](const auto& e) { return e.second.due.has_value(); }));
}

int RetryBackoff::failures(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? 0 : it->second.failures;
}

}  // namespace apiserver::controllers
