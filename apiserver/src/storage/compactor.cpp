#include "storage/compactor.h"

#include "guard.h"

namespace apiserver::storage {

Compactor::Compactor(store::Store& store, std::chrono::milliseconds interval,
                     const common::Clock& clock)
    : store_(store), interval_(interval), clock_(clock) {
  if (interval_.count() > 0) {
    thread_ = std::thread([this] { run(); });
  }
}

Compactor::~Compactor() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
  }
}

void Compactor::run() {
  store::Revision previous = 0;
  std::unique_lock lock(mu_);
  while (!clock_.wait_until(lock, cv_, clock_.now() + interval_, [&] { return stop_; })) {
    lock.unlock();
    run_guarded("the compactor", [&] {
      if (previous > store_.compacted_revision()) {
        store_.compact({previous, false});  // Compacted/Future answers only mean nothing to do
      }
    });
    previous = store_.current_revision();
    lock.lock();
  }
}

}  // namespace apiserver::storage
