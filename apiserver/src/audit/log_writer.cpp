#include "audit/log_writer.h"

#include <utility>
#include <vector>

#include "apiserver/log.h"
#include "guard.h"

namespace apiserver::audit {

LogWriter::LogWriter(std::unique_ptr<LogFile> file, size_t capacity)
    : file_(std::move(file)), capacity_(capacity == 0 ? 1 : capacity), thread_([this] { run(); }) {}

LogWriter::~LogWriter() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

bool LogWriter::add(std::string line) {
  std::uint64_t dropped = 0;
  {
    std::lock_guard lock(mu_);
    if (queue_.size() < capacity_) {
      queue_.push_back(std::move(line));
      ++queued_;
      wake_.notify_one();
      return true;
    }
    dropped = ++dropped_;
  }
  if (dropped % 1000 == 1) {
    log::error("audit: the log queue is full (" + std::to_string(capacity_) + " events); dropped " +
               std::to_string(dropped) + " events so far");
  }
  return false;
}

void LogWriter::flush() {
  std::unique_lock lock(mu_);
  const std::uint64_t target = queued_;
  written_.wait(lock, [&] { return written_count_ >= target; });
}

std::uint64_t LogWriter::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

void LogWriter::run() {
  std::vector<std::string> batch;
  std::string failure_logged;
  while (true) {
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) {
        return;  // stopping, and everything is written
      }
      batch.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
      queue_.clear();
    }
    run_guarded("audit log writer", [&] {
      std::string text;
      for (const auto& line : batch) {
        text += line;
        text += '\n';
      }
      auto error = file_->write(text);
      // One line per distinct failure, not one per batch.
      if (error && *error != failure_logged) {
        log::error("audit: " + *error);
        failure_logged = *error;
      } else if (!error) {
        failure_logged.clear();
      }
    });
    {
      std::lock_guard lock(mu_);
      written_count_ += batch.size();
    }
    written_.notify_all();
    batch.clear();
  }
}

}  // namespace apiserver::audit
