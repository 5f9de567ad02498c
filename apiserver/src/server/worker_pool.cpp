#include "server/worker_pool.h"

#include <algorithm>

#include "server/barrier.h"

namespace apiserver::server {

WorkerPool::WorkerPool(unsigned threads, size_t capacity) : capacity_(capacity) {
  for (unsigned i = 0; i < std::max(threads, 1u); ++i) {
    threads_.emplace_back([this] { run(); });
  }
}

WorkerPool::~WorkerPool() {
  stop();
}

bool WorkerPool::submit(std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || jobs_.size() >= capacity_) {
      return false;
    }
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
  return true;
}

void WorkerPool::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) {
      t.join();
    }
  }
}

size_t WorkerPool::busy() const {
  std::lock_guard lock(mu_);
  return jobs_.size() + running_;
}

void WorkerPool::run() {
  while (true) {
    std::function<void()> job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) {
        return;
      }
      job = std::move(jobs_.front());
      jobs_.pop_front();
      ++running_;
    }
    run_guarded("a request worker", job);
    std::lock_guard lock(mu_);
    --running_;
  }
}

}  // namespace apiserver::server
