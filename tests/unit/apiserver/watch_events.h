// Reads a watch response stream event by event, as the HTTPS layer would: it waits on the
// stream's wake-up, never on a timer. A chunk may carry several newline-ended events.
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "../wake_count.h"
#include "apiserver/http.h"

namespace apiserver::testing {

class EventReader {
 public:
  explicit EventReader(http::ChunkStream& stream) : stream_(stream) {
    stream_.set_wakeup([signal = signal_] { signal->notify(); });
  }
  ~EventReader() { stream_.set_wakeup(nullptr); }
  EventReader(const EventReader&) = delete;
  EventReader& operator=(const EventReader&) = delete;

  // The next event, waiting (at most `limit`) for it.
  nlohmann::json next(std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::string chunk;
    while (buffered_.find('\n') == std::string::npos) {
      const uint64_t seen = signal_->count();  // before next(): a wake-up after it is not lost
      if (stream_.next(chunk)) {
        buffered_ += chunk;
      } else if (!signal_->wait_past(seen, deadline)) {
        FAIL("no watch event within " << limit.count() << " ms");
      }
    }
    const auto end = buffered_.find('\n');
    nlohmann::json event = nlohmann::json::parse(buffered_.substr(0, end));
    buffered_.erase(0, end + 1);
    return event;
  }

 private:
  http::ChunkStream& stream_;
  // The stream's wake-ups; shared with its callback, which may outlive the reader.
  std::shared_ptr<testing_support::WakeCount> signal_ =
      std::make_shared<testing_support::WakeCount>();
  std::string buffered_;
};

}  // namespace apiserver::testing
