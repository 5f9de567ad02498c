// The threads that run request handlers: a fixed pool fed by a bounded queue, so that a burst of
// requests is refused (the server answers 429) instead of growing without limit.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace apiserver::server {

class WorkerPool {
 public:
  // Starts `threads` threads (at least one); at most `capacity` jobs wait at once.
  WorkerPool(unsigned threads, size_t capacity);
  ~WorkerPool();  // stop()

  // Queues `job`; false, and nothing queued, when the queue is full or the pool stopping. A job
  // that throws is logged and dropped (server/barrier.h): the thread takes the next one.
  bool submit(std::function<void()> job);

  // Runs what is queued, then ends the threads. Idempotent.
  void stop();

  // Jobs queued or running now.
  size_t busy() const;

 private:
  void run();

  const size_t capacity_;
  mutable std::mutex mu_;  // protects jobs_, stopping_, running_
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  size_t running_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace apiserver::server
