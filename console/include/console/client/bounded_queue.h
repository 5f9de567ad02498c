// A bounded multi-producer queue between the console's network threads and its UI thread.
//
// Producers never wait for room: try_push() on a full queue drops the item and counts it, so a
// slow frame can never stall a watch (the watch notices and relists; see watch_stream.h). The UI
// thread drains with drain(), which holds the lock only to move items out, never for a frame.
// Worker threads that consume (the request worker) wait with pop_wait().
//
// Thread-safe: every member may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace console::client {

template <class T>
class BoundedQueue {
 public:
  // `capacity` is clamped to at least 1.
  explicit BoundedQueue(size_t capacity, std::function<void()> on_first_item = {})
      : capacity_(capacity == 0 ? 1 : capacity), on_first_item_(std::move(on_first_item)) {}

  // Appends `item`; false (the item dropped and counted) when the queue is full or closed.
  bool try_push(T item) {
    bool was_empty = false;
    {
      std::lock_guard lock(mu_);
      if (closed_ || items_.size() >= capacity_) {
        ++dropped_;
        return false;
      }
      was_empty = items_.empty();
      items_.push_back(std::move(item));
    }
    ready_.notify_one();
    if (was_empty && on_first_item_) {
      on_first_item_();
    }
    return true;
  }

  // Moves up to `max` items, oldest first, to the end of `out`; returns how many. Never waits
  // for items.
  size_t drain(std::vector<T>& out, size_t max = SIZE_MAX) {
    std::lock_guard lock(mu_);
    size_t n = 0;
    while (n < max && !items_.empty()) {
      out.push_back(std::move(items_.front()));
      items_.pop_front();
      ++n;
    }
    return n;
  }

  // The oldest item, waiting up to `timeout` for one; nullopt on timeout or once closed and empty.
  std::optional<T> pop_wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    ready_.wait_for(lock, timeout, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) {
      return std::nullopt;
    }
    T item = std::move(items_.front());
    items_.pop_front();
    return item;
  }

  // Refuses further pushes and wakes every pop_wait(); items already queued stay drainable.
  void close() {
    {
      std::lock_guard lock(mu_);
      closed_ = true;
    }
    ready_.notify_all();
  }

  size_t size() const {
    std::lock_guard lock(mu_);
    return items_.size();
  }
  size_t capacity() const { return capacity_; }
  // Items refused by try_push() so far.
  uint64_t dropped() const {
    std::lock_guard lock(mu_);
    return dropped_;
  }

 private:
  const size_t capacity_;
  const std::function<void()> on_first_item_;
  mutable std::mutex mu_;  // protects items_, closed_ and dropped_
  std::condition_variable ready_;
  std::deque<T> items_;
  bool closed_ = false;
  uint64_t dropped_ = 0;
};

}  // namespace console::client
