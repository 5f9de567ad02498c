#include "authorization/object_follower.h"

#include <algorithm>

#include "apiserver/log.h"
#include "guard.h"

namespace apiserver::authorization {
namespace {

// After a failed list (the store closing, a value that cannot be decoded), the next try; the
// delay doubles while the lists keep failing, up to the longest.
constexpr auto kRelistDelay = std::chrono::milliseconds(1000);
constexpr auto kLongestRelistDelay = std::chrono::milliseconds(32000);
// How long a reader waits for the writes made so far to reach the sink.
constexpr auto kReadYourWrites = std::chrono::seconds(5);

}  // namespace

ObjectFollower::ObjectFollower(storage::Storage& storage, std::vector<std::string> prefixes,
                               Sink sink, std::string name)
    : storage_(storage),
      prefixes_(std::move(prefixes)),
      sink_(std::move(sink)),
      name_(std::move(name)),
      written_(prefixes_.size(), 0),
      followed_(prefixes_.size(), 0) {
  for (size_t i = 0; i < prefixes_.size(); ++i) {
    storage::Storage::WriteObserver observer;
    observer.begin = [this] {
      std::lock_guard lock(mu_);
      const uint64_t ticket = next_ticket_++;
      in_flight_.insert(ticket);
      return ticket;
    };
    observer.end = [this, i](uint64_t ticket, int64_t revision) {
      {
        std::lock_guard lock(mu_);
        in_flight_.erase(ticket);
        written_[i] = std::max(written_[i], revision);
      }
      caught_.notify_all();
    };
    storage_.observe_writes(prefixes_[i], std::move(observer));
  }
}

ObjectFollower::~ObjectFollower() {
  stop();
}

void ObjectFollower::stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
  }
  for (auto& w : watchers_) {
    w->set_notify(nullptr);
    w->cancel();
  }
  watchers_.clear();
}

void ObjectFollower::start() {
  // A list that fails (a stored value that cannot be decoded, the store closing) is tried again
  // by the follower's thread, as an informer lists again: the server starts meanwhile, with what
  // the sink has.
  bool listed = false;
  run_guarded(name_ + ": list the storage", [&] { listed = watch_and_list(); });
  thread_ = std::thread([this, listed] { run(!listed); });
}

bool ObjectFollower::watch_and_list() {
  for (auto& w : watchers_) {
    w->set_notify(nullptr);
    w->cancel();
  }
  watchers_.clear();
  const int64_t revision = storage_.current_revision();
  std::vector<ObjectChange> objects;
  // A prefix that cannot be listed leaves the others followed, as one informer's failure leaves
  // the others: its objects are missing until a later list succeeds.
  std::string failed;
  for (const auto& prefix : prefixes_) {
    storage::ListResult listed;
    if (auto e = storage_.list(prefix, "", 0, revision, listed)) {
      failed += (failed.empty() ? "listing " : "; listing ") + prefix + ": " + e.message;
      continue;
    }
    for (auto& item : listed.items) {
      objects.push_back({false, std::move(item.key), std::move(item.value)});
    }
  }
  for (const auto& prefix : prefixes_) {
    auto watcher = storage_.watch(prefix, prefix, false, revision + 1);
    if (!watcher) {
      throw std::runtime_error("watching " + prefix + " failed");
    }
    watcher->set_notify([this] {
      {
        std::lock_guard lock(mu_);
        news_ = true;
      }
      wake_.notify_all();
    });
    watchers_.push_back(std::move(watcher));
  }
  sink_(true, objects);
  {
    std::lock_guard lock(mu_);
    for (auto& f : followed_) {
      f = std::max(f, revision);
    }
  }
  caught_.notify_all();
  if (!failed.empty()) {
    log::error(name_ + ": " + failed + " (listing again later)");
    return false;
  }
  return true;
}

bool ObjectFollower::drain() {
  std::vector<ObjectChange> changes;
  std::vector<int64_t> reached(prefixes_.size(), 0);
  bool ended = false;
  store::WatchResponse response;
  for (size_t i = 0; i < watchers_.size(); ++i) {
    while (watchers_[i]->try_next(response)) {
      if (response.canceled) {
        ended = true;
        continue;
      }
      reached[i] = std::max(reached[i], response.header.revision);
      for (auto& e : response.events) {
        const bool deleted = e.type == store::Event::Type::Delete;
        changes.push_back(
            {deleted, std::move(e.kv.key), deleted ? std::string() : std::move(e.kv.value)});
      }
    }
  }
  if (!changes.empty()) {
    sink_(false, changes);
  }
  {
    std::lock_guard lock(mu_);
    for (size_t i = 0; i < followed_.size(); ++i) {
      followed_[i] = std::max(followed_[i], reached[i]);
    }
  }
  caught_.notify_all();
  return !ended;
}

void ObjectFollower::run(bool list_failed) {
  using Clock = std::chrono::steady_clock;
  std::chrono::milliseconds delay = kRelistDelay;
  // When to list again after a failure (a prefix that could not be listed, the store closing);
  // meanwhile the watches set up are drained as usual.
  bool retrying = false;
  Clock::time_point retry_at;
  auto failed = [&] {
    retrying = true;
    retry_at = Clock::now() + delay;
    delay = std::min(delay * 2, std::chrono::milliseconds(kLongestRelistDelay));
  };
  if (list_failed) {
    failed();
  }
  while (true) {
    bool progress = false;
    {
      std::unique_lock lock(mu_);
      auto woken = [this] { return stop_ || news_ || progress_; };
      if (retrying) {
        wake_.wait_until(lock, retry_at, woken);
      } else {
        wake_.wait(lock, woken);
      }
      if (stop_) {
        return;
      }
      news_ = false;
      progress = std::exchange(progress_, false);
    }
    const bool due = retrying && Clock::now() >= retry_at;
    bool listed = true;
    bool relisted = false;
    const bool ok = run_guarded(name_ + ": follow the storage watch", [&] {
      if (due) {
        relisted = true;
        listed = watch_and_list();
      }
      if (progress) {
        for (auto& w : watchers_) {
          w->request_progress();  // the answers arrive as responses: news
        }
      }
      if (!drain()) {
        log::info(2, name_ + ": a watch ended, listing again");
        relisted = true;
        listed = watch_and_list();
      }
    });
    if (!ok || !listed) {
      if (due || !retrying) {
        failed();
      }
    } else if (relisted && retrying) {
      retrying = false;
      delay = kRelistDelay;
    }
  }
}

bool ObjectFollower::wait_current(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  const uint64_t begun = next_ticket_;  // the writes announced before now
  return caught_.wait_for(lock, timeout, [this, begun] {
    if (!in_flight_.empty() && *in_flight_.begin() < begun) {
      return false;
    }
    for (size_t i = 0; i < written_.size(); ++i) {
      if (followed_[i] < written_[i]) {
        return false;
      }
    }
    return true;
  });
}

void ObjectFollower::catch_up() {
  if (!wait_current(kReadYourWrites)) {
    log::warning(name_ + ": the storage watch is behind; deciding with what has arrived");
  }
}

void ObjectFollower::request_progress() {
  {
    std::lock_guard lock(mu_);
    progress_ = true;
  }
  wake_.notify_all();
}

bool ObjectFollower::wait_revision(int64_t revision, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return caught_.wait_for(lock, timeout, [&] {
    return std::all_of(followed_.begin(), followed_.end(),
                       [&](int64_t f) { return f >= revision; });
  });
}

int64_t ObjectFollower::followed_revision() const {
  std::lock_guard lock(mu_);
  return followed_.empty() ? 0 : *std::min_element(followed_.begin(), followed_.end());
}

}  // namespace apiserver::authorization
