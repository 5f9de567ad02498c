#include "controller.h"

#include "apiserver/log.h"
#include "common/guard.h"

namespace cluster {

Controller::Controller(std::string name, const common::Clock& clock)
    : name_(std::move(name)), clock_(clock), queue_(common::WorkQueueOptions{}, clock) {}

Controller::~Controller() {
  stop();
}

void Controller::run() {
  worker_ = std::thread([this] { work(); });
}

void Controller::stop() {
  queue_.shutdown();
  if (worker_.joinable()) {
    worker_.join();
  }
}

void Controller::requeue_after(const std::string& key, common::Clock::duration delay) {
  queue_.add_after(key, delay);
}

void Controller::work() {
  while (auto key = queue_.get()) {
    std::optional<std::string> failed;
    const bool returned = common::run_guarded(
        [&] { failed = sync(*key); }, [&](std::string&& text) { failed = std::move(text); });
    if (returned && !failed) {
      queue_.forget(*key);
    } else {
      apiserver::log::info(
          2, name_ + ": syncing " + *key + " failed: " + failed.value_or("unknown") + "; retrying");
      if (!queue_.add_rate_limited(*key)) {
        apiserver::log::error(name_ + ": queue full; " + *key + " waits for its next change");
      }
    }
    queue_.done(*key);
  }
}

}  // namespace cluster
