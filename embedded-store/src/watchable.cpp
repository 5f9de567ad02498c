#include "watchable.h"

#include "guard.h"

namespace store {
namespace {

constexpr size_t kHistoryRevisionsPerRead = 256;
constexpr auto kSyncPollInterval = std::chrono::milliseconds(100);
constexpr auto kSyncFailureBackoff = std::chrono::seconds(1);

// A watcher's notify callback is the owner's code, run on a store thread: one that throws must
// not end the thread (nor keep the other watchers from theirs).
void notify(const std::function<void()>& n) {
  if (n) {
    run_guarded("watch notify callback", n);
  }
}

void run(std::vector<std::function<void()>>& notifies) {
  for (auto& n : notifies) {
    notify(n);
  }
  notifies.clear();
}

}  // namespace

// WatcherImpl --------------------------------------------------------------------------------

WatcherImpl::WatcherImpl(int64_t id, const WatchRequest& request, size_t capacity,
                         std::weak_ptr<WatchHub> hub)
    : id_(id),
      request_(request),
      bounds_(key_bounds(request.key, request.range_end)),
      capacity_(capacity),
      hub_(std::move(hub)),
      last_sent_(std::chrono::steady_clock::now()) {}

std::optional<WatchResponse> WatcherImpl::filter(const RevisionEvents& revision) const {
  WatchResponse response;
  for (const auto& e : revision.events) {
    if (!bounds_.contains(e.kv.key)) {
      continue;
    }
    if ((e.type == Event::Type::Put && request_.no_put) ||
        (e.type == Event::Type::Delete && request_.no_delete)) {
      continue;
    }
    response.events.push_back(e);
    if (!request_.prev_kv) {
      response.events.back().prev_kv.reset();
    }
  }
  if (response.events.empty()) {
    return std::nullopt;
  }
  response.header.revision = revision.revision;
  response.watch_id = id_;
  return response;
}

bool WatcherImpl::push(WatchResponse response, std::function<void()>& notify) {
  std::lock_guard lock(mu_);
  if (ended_) {
    return true;
  }
  if (queue_.size() >= capacity_) {
    return false;
  }
  queue_.push_back(std::move(response));
  cv_.notify_all();
  notify = notify_;
  return true;
}

void WatcherImpl::push_final(WatchResponse response, std::function<void()>& notify) {
  std::lock_guard lock(mu_);
  if (ended_) {
    return;
  }
  response.canceled = true;
  response.watch_id = id_;
  queue_.push_back(std::move(response));
  ended_ = true;
  cv_.notify_all();
  notify = notify_;
}

size_t WatcherImpl::room() const {
  std::lock_guard lock(mu_);
  return queue_.size() >= capacity_ ? 0 : capacity_ - queue_.size();
}

bool WatcherImpl::pop_locked(WatchResponse& out) {
  if (queue_.empty()) {
    return false;
  }
  out = std::move(queue_.front());
  queue_.pop_front();
  return true;
}

bool WatcherImpl::next(WatchResponse& out, std::chrono::milliseconds timeout) {
  bool got = false;
  {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return !queue_.empty() || ended_; });
    got = pop_locked(out);
  }
  if (got) {
    if (auto hub = hub_.lock()) {
      hub->kick();
    }
  }
  return got;
}

bool WatcherImpl::try_next(WatchResponse& out) {
  bool got = false;
  {
    std::lock_guard lock(mu_);
    got = pop_locked(out);
  }
  if (got) {
    if (auto hub = hub_.lock()) {
      hub->kick();
    }
  }
  return got;
}

void WatcherImpl::set_notify(std::function<void()> callback) {
  bool pending = false;
  {
    std::lock_guard lock(mu_);
    notify_ = callback;
    pending = !queue_.empty();
  }
  if (pending) {
    notify(callback);
  }
}

void WatcherImpl::request_progress() {
  if (auto hub = hub_.lock()) {
    hub->request_progress(id_);
  }
}

void WatcherImpl::cancel() {
  if (auto hub = hub_.lock()) {
    hub->remove(id_, "");
    return;
  }
  std::function<void()> callback;
  push_final(WatchResponse{}, callback);
  notify(callback);
}

bool WatcherImpl::finished() const {
  std::lock_guard lock(mu_);
  return ended_ && queue_.empty();
}

// WatchHub -----------------------------------------------------------------------------------

WatchHub::WatchHub(HistorySource* history, size_t watcher_capacity,
                   std::chrono::milliseconds progress_interval, Revision current,
                   Revision compacted)
    : history_(history),
      capacity_(std::max<size_t>(watcher_capacity, 2)),
      progress_interval_(progress_interval),
      revision_(current),
      compacted_(compacted) {}

WatchHub::~WatchHub() { close(); }

void WatchHub::start() { sync_thread_ = std::thread([this] { sync_loop(); }); }

void WatchHub::close() {
  std::vector<std::function<void()>> notifies;
  {
    std::lock_guard lock(mu_);
    if (closed_) {
      return;
    }
    closed_ = true;
    for (auto& [id, w] : watchers_) {
      WatchResponse r;
      r.header.revision = revision_;
      r.cancel_reason = "the store is closing";
      notifies.emplace_back();
      w->push_final(std::move(r), notifies.back());
    }
    watchers_.clear();
  }
  run(notifies);
  stop_ = true;
  kick();
  if (sync_thread_.joinable()) {
    sync_thread_.join();
  }
}

std::shared_ptr<Watcher> WatchHub::add(const WatchRequest& request) {
  std::vector<std::function<void()>> notifies(1);
  std::shared_ptr<WatcherImpl> w;
  {
    std::lock_guard lock(mu_);
    w = std::make_shared<WatcherImpl>(next_id_++, request, capacity_, weak_from_this());
    WatchResponse created;
    created.created = true;
    created.watch_id = w->id_;
    created.header.revision = revision_;
    if (closed_) {
      created.cancel_reason = "the store is closing";
      w->push_final(std::move(created), notifies[0]);
      return w;
    }
    if (request.start_revision > 0 && request.start_revision < compacted_) {
      // One response says both: the watch was created and, its history being gone, ended.
      created.compact_revision = compacted_;
      created.cancel_reason = "mvcc: required revision has been compacted";
      w->push_final(std::move(created), notifies[0]);
      return w;
    }
    w->push(std::move(created), notifies[0]);
    w->next_rev_ = request.start_revision > 0 ? request.start_revision : revision_ + 1;
    w->synced_ = w->next_rev_ > revision_;
    watchers_[w->id_] = w;
  }
  if (!w->synced_) {
    kick();
  }
  return w;
}

void WatchHub::publish(const std::vector<RevisionEvents>& batch, Revision revision) {
  std::vector<std::function<void()>> notifies;
  {
    std::lock_guard lock(mu_);
    revision_ = revision;
    auto now = std::chrono::steady_clock::now();
    for (auto it = watchers_.begin(); it != watchers_.end();) {
      WatcherImpl& w = *it->second;
      if (!w.synced_) {
        ++it;
        continue;
      }
      bool overflow = false;
      for (const auto& rev : batch) {
        if (rev.revision < w.next_rev_) {
          continue;  // a watch that starts at a future revision waits for it
        }
        auto response = w.filter(rev);
        if (!response) {
          continue;
        }
        notifies.emplace_back();
        if (!w.push(std::move(*response), notifies.back())) {
          WatchResponse r;
          r.header.revision = revision;
          r.cancel_reason = "watcher fell behind: its buffer of " + std::to_string(capacity_) +
                            " responses is full; watch again from revision " +
                            std::to_string(rev.revision);
          w.push_final(std::move(r), notifies.back());
          overflow = true;
          break;
        }
        w.last_sent_ = now;
      }
      w.next_rev_ = std::max(w.next_rev_, revision + 1);
      if (!overflow && w.progress_pending_) {
        WatchResponse progress;
        progress.header.revision = revision;
        progress.watch_id = w.id_;
        notifies.emplace_back();
        w.progress_pending_ = !w.push(std::move(progress), notifies.back());
      }
      it = overflow ? watchers_.erase(it) : std::next(it);
    }
  }
  run(notifies);
}

void WatchHub::set_compacted(Revision compacted) {
  std::lock_guard lock(mu_);
  compacted_ = std::max(compacted, floor_);
}

void WatchHub::raise_floor(Revision floor) {
  std::lock_guard lock(mu_);
  floor_ = std::max(floor_, floor);
  compacted_ = std::max(compacted_, floor_);
}

void WatchHub::restart(Revision revision, Revision compacted, Revision floor) {
  std::vector<std::function<void()>> notifies;
  {
    std::lock_guard lock(mu_);
    revision_ = revision;
    floor_ = std::max(floor_, floor);
    compacted_ = std::max(compacted, floor_);
    for (auto& [id, w] : watchers_) {
      WatchResponse r;
      r.header.revision = revision;
      r.compact_revision = compacted_;
      r.cancel_reason = "mvcc: required revision has been compacted";
      notifies.emplace_back();
      w->push_final(std::move(r), notifies.back());
    }
    watchers_.clear();
  }
  run(notifies);
}

size_t WatchHub::watcher_count() const {
  std::lock_guard lock(mu_);
  return watchers_.size();
}

void WatchHub::remove(int64_t id, const std::string& reason, Revision compact_revision) {
  std::function<void()> callback;
  {
    std::lock_guard lock(mu_);
    auto it = watchers_.find(id);
    if (it == watchers_.end()) {
      return;
    }
    WatchResponse r;
    r.header.revision = revision_;
    r.cancel_reason = reason;
    r.compact_revision = compact_revision;
    it->second->push_final(std::move(r), callback);
    watchers_.erase(it);
  }
  notify(callback);
}

void WatchHub::request_progress(int64_t id) {
  std::function<void()> callback;
  {
    std::lock_guard lock(mu_);
    auto it = watchers_.find(id);
    if (it == watchers_.end()) {
      return;
    }
    WatcherImpl& w = *it->second;
    if (!w.synced_) {
      w.progress_pending_ = true;
    } else {
      WatchResponse progress;
      progress.header.revision = revision_;
      progress.watch_id = id;
      w.progress_pending_ = !w.push(std::move(progress), callback);
    }
  }
  notify(callback);
}

void WatchHub::kick() {
  {
    std::lock_guard lock(kick_mu_);
    kicked_ = true;
  }
  kick_cv_.notify_one();
}

void WatchHub::sync_loop() {
  auto last_progress_check = std::chrono::steady_clock::now();
  std::chrono::milliseconds wait = kSyncPollInterval;
  while (!stop_) {
    {
      std::unique_lock lock(kick_mu_);
      kick_cv_.wait_for(lock, wait, [&] { return kicked_ || stop_.load(); });
      kicked_ = false;
    }
    if (stop_) {
      break;
    }
    const bool ok = run_guarded("watch sync thread", [&] {
      while (!stop_ && sync_once()) {
      }
      auto now = std::chrono::steady_clock::now();
      if (now - last_progress_check >=
          std::min<std::chrono::milliseconds>(progress_interval_, std::chrono::seconds(1))) {
        last_progress_check = now;
        send_periodic_progress();
      }
    });
    // A pass that failed is tried again, but not at the poll rate.
    wait = ok ? kSyncPollInterval : kSyncFailureBackoff;
  }
}

bool WatchHub::sync_once() {
  struct Work {
    std::shared_ptr<WatcherImpl> watcher;
    Revision from;
  };
  std::vector<Work> work;
  Revision target;
  Revision compacted;
  {
    std::lock_guard lock(mu_);
    target = revision_;
    compacted = compacted_;
    for (auto& [id, w] : watchers_) {
      if (!w->synced_) {
        work.push_back({w, w->next_rev_});
      }
    }
  }
  bool progressed = false;
  std::vector<std::function<void()>> notifies;
  for (auto& [w, from] : work) {
    if (from < compacted) {
      remove(w->id_, "mvcc: required revision has been compacted", compacted);
      continue;
    }
    Revision next = from;
    if (from <= target) {
      size_t room = w->room();
      if (room == 0) {
        continue;
      }
      std::vector<RevisionEvents> revisions;
      Status s = history_->read_history(from, target, std::min(room, kHistoryRevisionsPerRead),
                                        revisions, next);
      if (!s.is_ok()) {
        if (s.code() == Code::Compacted) {
          continue;  // the next pass cancels it with the compacted revision
        }
        remove(w->id_, "reading history failed: " + s.message());
        continue;
      }
      for (const auto& rev : revisions) {
        if (auto response = w->filter(rev)) {
          notifies.emplace_back();
          w->push(std::move(*response), notifies.back());
        }
      }
      progressed = progressed || next != from;
    }
    std::lock_guard lock(mu_);
    if (watchers_.count(w->id_) == 0) {
      continue;
    }
    w->next_rev_ = next;
    if (next > revision_) {
      w->synced_ = true;
      w->last_sent_ = std::chrono::steady_clock::now();
      if (w->progress_pending_) {
        WatchResponse progress;
        progress.header.revision = revision_;
        progress.watch_id = w->id_;
        notifies.emplace_back();
        w->progress_pending_ = !w->push(std::move(progress), notifies.back());
      }
    }
  }
  run(notifies);
  return progressed;
}

void WatchHub::send_periodic_progress() {
  std::vector<std::function<void()>> notifies;
  {
    std::lock_guard lock(mu_);
    auto now = std::chrono::steady_clock::now();
    for (auto& [id, w] : watchers_) {
      if (w->synced_ && w->request_.progress_notify && now - w->last_sent_ >= progress_interval_) {
        WatchResponse progress;
        progress.header.revision = revision_;
        progress.watch_id = id;
        notifies.emplace_back();
        if (w->push(std::move(progress), notifies.back())) {
          w->last_sent_ = now;
        }
      }
    }
  }
  run(notifies);
}

}  // namespace store
