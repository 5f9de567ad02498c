// The audit log backend: events are rendered on the request's thread and queued; one writer
// thread appends them to the LogFile. The queue is bounded (kube-apiserver's log backend blocks
// the request until the line is written; here a request never waits on the disk): when it is
// full, the event is dropped, counted, and an error logged (the first drop, then every 1000th),
// as upstream's batching backends drop what their buffer cannot hold.
//
// Thread-safe: any thread may call add(). The destructor writes what is queued, then stops.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "audit/log_file.h"

namespace apiserver::audit {

class LogWriter {
 public:
  static constexpr size_t kDefaultCapacity = 10000;

  // `file` must be open.
  explicit LogWriter(std::unique_ptr<LogFile> file, size_t capacity = kDefaultCapacity);
  ~LogWriter();
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;

  // Queues one line (without its newline); false when the queue was full and it was dropped.
  bool add(std::string line);
  // Waits until every line queued so far is written (for tests and shutdown).
  void flush();
  std::uint64_t dropped() const;

 private:
  void run();

  std::unique_ptr<LogFile> file_;  // the writer thread's alone
  const size_t capacity_;
  // mu_ guards the queue, the counters and stopping_.
  mutable std::mutex mu_;
  std::condition_variable wake_;     // lines queued or stopping
  std::condition_variable written_;  // a batch was written
  std::deque<std::string> queue_;
  std::uint64_t queued_ = 0;         // lines ever queued
  std::uint64_t written_count_ = 0;  // lines ever taken and written (or failed)
  std::uint64_t dropped_ = 0;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the rest is built
};

}  // namespace apiserver::audit
