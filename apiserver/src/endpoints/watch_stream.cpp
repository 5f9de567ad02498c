#include "endpoints/watch_stream.h"

#include "endpoints/object_answers.h"
#include "endpoints/served_json.h"
#include "errors/status.h"
#include "guard.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

constexpr auto kWatchTick = std::chrono::milliseconds(250);
// Watch events waiting for one client are sent together up to this size.
constexpr size_t kChunkBytes = 256 * 1024;
// kube-apiserver sends a bookmark about once a minute to watchers that allow them.
constexpr auto kBookmarkInterval = std::chrono::seconds(60);

}  // namespace

WatchStream::WatchStream(std::shared_ptr<store::Watcher> watcher, std::deque<std::string> initial,
                         std::chrono::steady_clock::time_point deadline, json bookmark_type,
                         int64_t requested_rv, Selection selection, Presenter present,
                         std::string user)
    : user_(std::move(user)),
      selection_(std::move(selection)),
      present_(std::move(present)),
      requested_rv_(requested_rv),
      watcher_(std::move(watcher)),
      pending_(std::move(initial)),
      deadline_(deadline),
      bookmark_type_(std::move(bookmark_type)),
      last_bookmark_(std::chrono::steady_clock::now()) {}

bool WatchStream::next(std::string& chunk) {
  {
    std::lock_guard lock(mu_);
    if (!pending_.empty()) {
      chunk.clear();
      while (!pending_.empty() && chunk.size() < kChunkBytes) {
        chunk += pending_.front();
        pending_.pop_front();
      }
      return true;
    }
  }
  if (closed_ || !watcher_) {
    return false;
  }
  // Everything the watcher has waiting goes out in one chunk (up to kChunkBytes): a busy
  // watch costs one write per batch of events, not one per event.
  std::string out;
  store::WatchResponse response;
  while (out.size() < kChunkBytes && watcher_->try_next(response)) {
    if (response.created && !response.canceled) {
      continue;
    }
    if (response.is_progress_notify()) {
      if (bookmark_type_.is_null()) {
        continue;
      }
      // Every event up to this revision was delivered: a BOOKMARK says so.
      json object = bookmark_type_;
      object["metadata"] = {{"resourceVersion", std::to_string(response.header.revision)}};
      out += nlohmann::ordered_json{{"type", "BOOKMARK"}, {"object", object}}.dump() + "\n";
      continue;
    }
    if (response.canceled) {
      if (response.compact_revision > 0) {
        // As the watch cache words it: the requested revision, then the newest one gone.
        out += error_event(410, "Expired",
                           "too old resource version: " + std::to_string(requested_rv_) + " (" +
                               std::to_string(response.compact_revision - 1) + ")");
      }
      finish();
      break;
    }
    for (const auto& e : response.events) {
      out += convert(e);
    }
  }
  if (out.empty()) {
    return false;
  }
  chunk = std::move(out);
  return true;
}

bool WatchStream::finished() const {
  std::lock_guard lock(mu_);
  return (closed_ || (watcher_ && watcher_->finished())) && pending_.empty();
}

void WatchStream::set_wakeup(std::function<void()> wakeup) {
  {
    std::lock_guard lock(mu_);
    wakeup_ = wakeup;
  }
  if (watcher_) {
    watcher_->set_notify(wakeup);
  }
}

// Called by the ticker: ends the watch at its deadline; asks for a bookmark now and then.
void WatchStream::tick(std::chrono::steady_clock::time_point now) {
  if (now >= deadline_ && !closed_) {
    finish();
    return;
  }
  if (!bookmark_type_.is_null() && watcher_ && now - last_bookmark_ >= kBookmarkInterval) {
    last_bookmark_ = now;
    watcher_->request_progress();
  }
}

void WatchStream::finish() {
  std::function<void()> wake;
  {
    std::lock_guard lock(mu_);
    if (closed_) {
      return;
    }
    closed_ = true;
    wake = wakeup_;
  }
  if (watcher_) {
    watcher_->cancel();
  }
  if (wake) {
    wake();
  }
}

std::string WatchStream::error_event(int code, const std::string& reason,
                                     const std::string& message) {
  nlohmann::ordered_json event = {{"type", "ERROR"},
                                  {"object", errors::failure(code, reason, message).document()}};
  return event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// A store event as a watch event. With selectors, an object that starts matching is ADDED
// and one that stops matching is DELETED, as kube-apiserver's watch cache does.
std::string WatchStream::convert(const store::Event& e) const {
  if (selection_.empty() && !present_) {
    // Every event goes out as stored: no decoding.
    bool deleted = e.type == store::Event::Type::Delete;
    const store::KeyValue* kv = deleted ? (e.prev_kv ? &*e.prev_kv : nullptr) : &e.kv;
    if (kv == nullptr) {
      return "";
    }
    std::string line = deleted     ? "{\"type\":\"DELETED\",\"object\":"
                       : e.prev_kv ? "{\"type\":\"MODIFIED\",\"object\":"
                                   : "{\"type\":\"ADDED\",\"object\":";
    if (append_served_json(kv->value, e.kv.mod_revision, false, line)) {
      return line + "}\n";
    }
  }
  nlohmann::ordered_json event;
  json object;
  if (e.type == store::Event::Type::Delete) {
    if (!e.prev_kv) {
      return "";
    }
    object = served_object({e.prev_kv->key, e.prev_kv->value, e.kv.mod_revision});
    if (!selection_.empty() && !selection_.matches(object)) {
      return "";
    }
    event["type"] = "DELETED";
  } else {
    object = served_object({e.kv.key, e.kv.value, e.kv.mod_revision});
    bool now = selection_.empty() || selection_.matches(object);
    bool before = e.prev_kv.has_value() &&
                  (selection_.empty() ||
                   selection_.matches(served_object({e.prev_kv->key, e.prev_kv->value, 0})));
    if (!now && !before) {
      return "";
    }
    event["type"] = now ? (before ? "MODIFIED" : "ADDED") : "DELETED";
  }
  if (present_) {
    auto presented = present_(object);
    if (!presented) {
      nlohmann::ordered_json failed = {{"type", "ERROR"}, {"object", presented.error().document()}};
      return failed.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    }
    event["object"] = std::move(*presented);
  } else {
    event["object"] = std::move(object);
  }
  return event.dump() + "\n";
}

WatchTicker::WatchTicker() : thread_([this] { run(); }) {}

WatchTicker::~WatchTicker() {
  close_all();
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void WatchTicker::add(const std::shared_ptr<TickedStream>& stream) {
  std::lock_guard lock(mu_);
  streams_.push_back(stream);
}

size_t WatchTicker::count() {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (auto& w : streams_) {
    if (auto s = w.lock(); s && !s->done() && s->is_watch()) {
      ++n;
    }
  }
  return n;
}

size_t WatchTicker::count_for(const std::string& user) {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (auto& w : streams_) {
    if (auto s = w.lock(); s && !s->done() && s->is_watch() && s->user() == user) {
      ++n;
    }
  }
  return n;
}

void WatchTicker::close_all() {
  std::vector<std::shared_ptr<TickedStream>> streams;
  {
    std::lock_guard lock(mu_);
    for (auto& w : streams_) {
      if (auto s = w.lock()) {
        streams.push_back(s);
      }
    }
  }
  for (auto& s : streams) {
    s->close();
  }
}

void WatchTicker::run() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, kWatchTick);
    auto now = std::chrono::steady_clock::now();
    std::vector<std::shared_ptr<TickedStream>> live;
    for (auto it = streams_.begin(); it != streams_.end();) {
      auto s = it->lock();
      if (!s || s->done()) {
        it = streams_.erase(it);
      } else {
        live.push_back(s);
        ++it;
      }
    }
    lock.unlock();
    for (auto& s : live) {
      run_guarded("the watch ticker", [&] { s->tick(now); });
    }
    lock.lock();
  }
}

}  // namespace apiserver::endpoints
