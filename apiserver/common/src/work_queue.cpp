#include "common/work_queue.h"

#include <algorithm>

namespace common {

WorkQueue::WorkQueue(WorkQueueOptions options, const Clock& clock)
    : options_(options), clock_(clock) {}

WorkQueue::~WorkQueue() {
  shutdown();
}

bool WorkQueue::add(const std::string& key) {
  bool added = false;
  {
    std::lock_guard lock(mu_);
    added = add_locked(key);
  }
  changed_.notify_all();
  return added;
}

bool WorkQueue::add_locked(const std::string& key) {
  if (shut_down_) {
    return false;
  }
  if (dirty_.count(key) != 0) {
    return true;
  }
  if (dirty_.size() >= options_.capacity) {
    return false;
  }
  dirty_.insert(key);
  ++changes_;
  if (processing_.count(key) == 0) {
    queue_.push_back(key);  // else done() queues it
  }
  return true;
}

bool WorkQueue::add_after(const std::string& key, Clock::duration delay) {
  bool added = false;
  {
    std::lock_guard lock(mu_);
    added = add_after_locked(key, delay);
  }
  changed_.notify_all();  // a get() waiting for a later due time recomputes its deadline
  return added;
}

bool WorkQueue::add_after_locked(const std::string& key, Clock::duration delay) {
  if (delay <= Clock::duration::zero()) {
    return add_locked(key);
  }
  if (shut_down_) {
    return false;
  }
  const Clock::time_point due = clock_.now() + delay;
  auto it = delayed_.find(key);
  if (it != delayed_.end()) {
    if (due < it->second) {
      due_.erase({it->second, key});
      it->second = due;
      due_.insert({due, key});
      ++changes_;
    }
    return true;
  }
  if (delayed_.size() >= options_.capacity) {
    return false;
  }
  delayed_.emplace(key, due);
  due_.insert({due, key});
  ++changes_;
  return true;
}

bool WorkQueue::add_rate_limited(const std::string& key) {
  bool added = false;
  {
    std::lock_guard lock(mu_);
    auto it = retries_.find(key);
    if (it == retries_.end()) {
      if (retries_.size() >= options_.capacity || shut_down_) {
        return false;
      }
      it = retries_.emplace(key, 0).first;
    }
    // base·2^n without overflow: doubling stops at the cap.
    const auto cap = std::max(options_.base_delay, options_.max_delay);
    auto delay = options_.base_delay;
    for (int i = 0; i < it->second && delay < cap; ++i) {
      delay *= 2;
    }
    ++it->second;
    added = add_after_locked(key, std::min(delay, cap));
  }
  changed_.notify_all();
  return added;
}

void WorkQueue::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  retries_.erase(key);
}

int WorkQueue::requeues(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = retries_.find(key);
  return it == retries_.end() ? 0 : it->second;
}

void WorkQueue::promote_locked(Clock::time_point now) {
  while (!due_.empty() && due_.begin()->first <= now) {
    std::string key = due_.begin()->second;
    due_.erase(due_.begin());
    delayed_.erase(key);
    add_locked(key);  // dropped when the queue is full, as documented
  }
}

std::string WorkQueue::take_locked() {
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  dirty_.erase(key);
  processing_.insert(key);
  return key;
}

std::optional<std::string> WorkQueue::get() {
  std::unique_lock lock(mu_);
  while (!shut_down_) {
    promote_locked(clock_.now());
    if (!queue_.empty()) {
      return take_locked();
    }
    if (due_.empty()) {
      changed_.wait(lock);
    } else {
      clock_.wait_until(lock, changed_, due_.begin()->first);
    }
  }
  return std::nullopt;
}

std::optional<std::string> WorkQueue::try_get() {
  std::lock_guard lock(mu_);
  if (shut_down_) {
    return std::nullopt;
  }
  promote_locked(clock_.now());
  if (queue_.empty()) {
    return std::nullopt;
  }
  return take_locked();
}

void WorkQueue::done(const std::string& key) {
  {
    std::lock_guard lock(mu_);
    processing_.erase(key);
    if (dirty_.count(key) != 0) {
      queue_.push_back(key);
    }
  }
  changed_.notify_all();
}

void WorkQueue::shutdown() {
  {
    std::lock_guard lock(mu_);
    shut_down_ = true;
  }
  changed_.notify_all();
}

bool WorkQueue::shutting_down() const {
  std::lock_guard lock(mu_);
  return shut_down_;
}

size_t WorkQueue::size() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

bool WorkQueue::idle_locked(Clock::time_point horizon) const {
  return queue_.empty() && processing_.empty() && (due_.empty() || due_.begin()->first > horizon);
}

bool WorkQueue::idle(Clock::time_point horizon) const {
  std::lock_guard lock(mu_);
  return idle_locked(horizon);
}

bool WorkQueue::wait_idle(Clock::time_point horizon, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  changed_.wait_for(lock, timeout, [&] { return shut_down_ || idle_locked(horizon); });
  return idle_locked(horizon);
}

uint64_t WorkQueue::changes() const {
  std::lock_guard lock(mu_);
  return changes_;
}

bool WorkQueue::wait_changed(uint64_t seen, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return changed_.wait_for(lock, timeout, [&] { return changes_ > seen; });
}

}  // namespace common
