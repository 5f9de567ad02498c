#include "watch_service.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>

#include "common/guard.h"
#include "convert.h"

namespace etcdwire {

namespace pb = etcdserverpb;

namespace {

constexpr int64_t kNoWatch = -1;     // etcd's InvalidWatchID: a response for the whole stream
constexpr size_t kMaxQueued = 1024;  // responses of the stream's own making (acks, fragments)
constexpr const char* kDuplicateId = "mvcc: duplicate watch ID provided on the WatchStream";
constexpr const char* kTooManyWatches = "etcdserver: too many watches on one stream";

// One Watch stream. Responses come from the store's watchers (each with its bounded buffer)
// and from the stream itself (refusals, progress for a stream without watches, the second half
// of a split response); one write is in flight at a time, and the next is taken only when it
// completes, so a slow client holds back its own watchers, whose buffers the store bounds.
//
// Threads: gRPC calls the reactions; the store calls a watcher's notify from its own threads.
// Everything shared sits in Core under its mutex. Whoever sets `writing` owns the right to call
// StartWrite (and, at the end, Finish) and calls it after unlocking; OnDone, the last reaction,
// clears Core::owner so that a late notify finds nobody.
class Stream final : public grpc::ServerBidiReactor<pb::WatchRequest, pb::WatchResponse> {
 public:
  Stream(Member& member, WatchLimits limits)
      : member_(member), limits_(limits), core_(std::make_shared<Core>()) {
    core_->owner = this;
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      return;  // the client closed its side (its watches go on) or the stream broke (OnCancel)
    }
    bool ran = common::run_guarded([&] { handle(request_); }, [&](std::string&&) {});
    if (!ran) {
      end(grpc::Status(grpc::StatusCode::INTERNAL, "etcdserver: internal error in watch"));
    }
    bool paused = false;
    {
      std::lock_guard lock(core_->mutex);
      if (core_->finishing) {
        return;
      }
      paused = core_->queued.size() >= kMaxQueued;
      if (paused) {
        core_->read_paused = true;  // resumed by pump once the client took its responses
      } else {
        core_->starting_read = true;  // holds Finish back until the read is started
      }
    }
    if (!paused) {
      StartRead(&request_);
      std::lock_guard lock(core_->mutex);
      core_->starting_read = false;
    }
    pump();
  }

  void OnWriteDone(bool ok) override {
    {
      std::lock_guard lock(core_->mutex);
      core_->writing = false;
    }
    if (!ok) {
      end(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
      return;
    }
    pump();
  }

  void OnCancel() override {
    end(grpc::Status(grpc::StatusCode::CANCELLED, "etcdserver: watch canceled"));
  }

  void OnDone() override {
    std::map<int64_t, Entry> watches;
    {
      std::unique_lock lock(core_->mutex);
      core_->owner = nullptr;
      // A notify that found the owner before this may still be pumping: wait for it to return.
      core_->idle.wait(lock, [this] { return core_->notifying == 0; });
      watches.swap(core_->watches);
    }
    for (auto& [id, entry] : watches) {
      entry.watcher->set_notify(nullptr);
      entry.watcher->cancel();
    }
    delete this;
  }

 private:
  struct Entry {
    std::shared_ptr<store::Watcher> watcher;
    bool fragment = false;
  };

  struct Core {
    std::mutex mutex;
    std::condition_variable idle;      // signalled when `notifying` drops to 0
    Stream* owner = nullptr;           // null once OnDone ran
    int notifying = 0;                 // notifies pumping the owner right now
    std::map<int64_t, Entry> watches;  // by the stream's watch ID
    std::deque<int64_t> ready;         // watches whose notify fired, in order
    std::deque<pb::WatchResponse> queued;
    int64_t next_id = 0;
    bool writing = false;
    bool read_paused = false;
    bool starting_read = false;
    bool finishing = false;
    bool finished = false;
    grpc::Status final_status;
  };

  void handle(const pb::WatchRequest& request) {
    switch (request.request_union_case()) {
      case pb::WatchRequest::kCreateRequest:
        create(request.create_request());
        break;
      case pb::WatchRequest::kCancelRequest:
        cancel(request.cancel_request().watch_id());
        break;
      case pb::WatchRequest::kProgressRequest:
        progress();
        break;
      case pb::WatchRequest::REQUEST_UNION_NOT_SET:
        break;  // etcd ignores what it does not know, and so does the stream
    }
  }

  void create(const pb::WatchCreateRequest& create) {
    store::WatchRequest request = from_wire(create);
    if (request.key.empty()) {
      request.key = std::string(1, '\0');  // the smallest key, as etcd reads an empty one
    }
    int64_t id = 0;
    {
      std::lock_guard lock(core_->mutex);
      std::string refusal;
      if (core_->watches.size() >= limits_.max_watches) {
        refusal = kTooManyWatches;
      } else if (create.watch_id() != 0 && core_->watches.count(create.watch_id()) != 0) {
        refusal = kDuplicateId;
      }
      if (!refusal.empty()) {
        pb::WatchResponse refused;
        member_.fill(*refused.mutable_header());
        refused.set_watch_id(kNoWatch);
        refused.set_created(true);
        refused.set_canceled(true);
        refused.set_cancel_reason(refusal);
        core_->queued.push_back(std::move(refused));
        return;
      }
      if (create.watch_id() != 0) {
        id = create.watch_id();
      } else {
        while (core_->watches.count(core_->next_id) != 0) {
          ++core_->next_id;
        }
        id = core_->next_id++;
      }
    }
    auto watcher = member_.store().watch(request);
    {
      std::lock_guard lock(core_->mutex);
      core_->watches[id] = Entry{watcher, create.fragment()};
    }
    // Outside the lock: the notify may fire at once, and it takes the lock.
    std::weak_ptr<Core> weak = core_;
    watcher->set_notify([weak, id] {
      auto core = weak.lock();
      if (!core) {
        return;
      }
      Stream* owner = nullptr;
      {
        std::lock_guard lock(core->mutex);
        core->ready.push_back(id);
        owner = core->owner;
        if (owner == nullptr) {
          return;
        }
        ++core->notifying;  // keeps OnDone (and the delete) waiting until pump returns
      }
      owner->pump();
      std::lock_guard lock(core->mutex);
      if (--core->notifying == 0) {
        core->idle.notify_all();
      }
    });
  }

  void cancel(int64_t id) {
    std::shared_ptr<store::Watcher> watcher;
    {
      std::lock_guard lock(core_->mutex);
      auto found = core_->watches.find(id);
      if (found == core_->watches.end()) {
        return;  // etcd answers nothing for an unknown ID
      }
      watcher = found->second.watcher;
    }
    watcher->cancel();  // its last response (canceled) reaches the client as etcd's answer
  }

  void progress() {
    std::vector<std::shared_ptr<store::Watcher>> watchers;
    {
      std::lock_guard lock(core_->mutex);
      for (const auto& [id, entry] : core_->watches) {
        watchers.push_back(entry.watcher);
      }
      if (watchers.empty()) {
        pb::WatchResponse response;
        member_.fill(*response.mutable_header());
        response.set_watch_id(kNoWatch);
        core_->queued.push_back(std::move(response));
        return;
      }
    }
    // Each watch answers once every event up to the current revision was queued for it.
    for (const auto& watcher : watchers) {
      watcher->request_progress();
    }
  }

  // Ends the stream with `status` (the first one asked for) once no write is in flight. It
  // always pumps: the reaction that calls it may be the one that just let a deferred Finish go.
  void end(grpc::Status status) {
    {
      std::lock_guard lock(core_->mutex);
      if (!core_->finishing) {
        core_->finishing = true;
        core_->final_status = std::move(status);
      }
    }
    pump();
  }

  // Starts the next write, or the Finish, when nothing is in flight.
  void pump() {
    bool resume_read = false;
    {
      std::unique_lock lock(core_->mutex);
      if (core_->writing || core_->finished) {
        return;
      }
      if (core_->finishing) {
        if (core_->starting_read) {
          return;  // OnReadDone pumps again once its read is started
        }
        core_->finished = true;
        grpc::Status status = core_->final_status;
        lock.unlock();
        Finish(status);
        return;
      }
      if (!take_next(out_)) {
        return;
      }
      core_->writing = true;
      if (core_->read_paused && core_->queued.size() < kMaxQueued / 2) {
        core_->read_paused = false;
        resume_read = true;
      }
    }
    // The read first: while the write is in flight nobody can Finish.
    if (resume_read) {
      StartRead(&request_);
    }
    StartWrite(&out_);
  }

  // The next response to send (the stream's own first, then the watchers' in turn). Called with
  // the core locked.
  bool take_next(pb::WatchResponse& out) {
    if (!core_->queued.empty()) {
      out = std::move(core_->queued.front());
      core_->queued.pop_front();
      return true;
    }
    while (!core_->ready.empty()) {
      int64_t id = core_->ready.front();
      core_->ready.pop_front();
      auto found = core_->watches.find(id);
      if (found == core_->watches.end()) {
        continue;
      }
      store::WatchResponse response;
      if (!found->second.watcher->try_next(response)) {
        if (found->second.watcher->finished()) {
          core_->watches.erase(found);
        }
        continue;
      }
      core_->ready.push_back(id);  // it may hold more; the others get their turn first
      translate(id, found->second.fragment, std::move(response), out);
      return true;
    }
    return false;
  }

  // The store's response as etcd sends it, queueing whatever follows it.
  void translate(int64_t id, bool fragment, store::WatchResponse response, pb::WatchResponse& out) {
    out.Clear();
    member_.fill(*out.mutable_header(), response.header.revision);
    out.set_watch_id(id);
    if (response.created && response.canceled && response.compact_revision != 0) {
      // etcd acknowledges the watch, then cancels it in a response of its own.
      out.set_created(true);
      pb::WatchResponse compacted;
      member_.fill(*compacted.mutable_header());
      compacted.set_watch_id(id);
      compacted.set_canceled(true);
      compacted.set_compact_revision(response.compact_revision);
      core_->queued.push_front(std::move(compacted));
      return;
    }
    out.set_created(response.created);
    out.set_canceled(response.canceled);
    out.set_compact_revision(response.compact_revision);
    out.set_cancel_reason(response.cancel_reason);
    for (const auto& event : response.events) {
      to_wire(event, *out.add_events());
    }
    if (fragment && out.events_size() > 1 && out.ByteSizeLong() > limits_.max_response_bytes) {
      split(out);
    }
  }

  // Splits an oversized response into fragments of at most the limit (one event at least),
  // each but the last marked fragment; the first goes out now, the rest are queued in order.
  void split(pb::WatchResponse& whole) {
    std::vector<pb::WatchResponse> parts;
    pb::WatchResponse part;
    part.mutable_header()->CopyFrom(whole.header());
    part.set_watch_id(whole.watch_id());
    const size_t empty_size = part.ByteSizeLong();
    size_t size = empty_size;
    for (auto& event : *whole.mutable_events()) {
      size_t event_size = event.ByteSizeLong() + 8;  // the field's tag and length
      if (part.events_size() > 0 && size + event_size > limits_.max_response_bytes) {
        part.set_fragment(true);
        parts.push_back(part);
        part.clear_events();
        part.set_fragment(false);  // the last part says the response is whole
        size = empty_size;
      }
      *part.add_events() = std::move(event);
      size += event_size;
    }
    parts.push_back(std::move(part));
    whole = std::move(parts.front());
    for (size_t i = parts.size(); i-- > 1;) {
      core_->queued.push_front(std::move(parts[i]));
    }
  }

  Member& member_;
  WatchLimits limits_;
  std::shared_ptr<Core> core_;
  pb::WatchRequest request_;
  pb::WatchResponse out_;
};

}  // namespace

grpc::ServerBidiReactor<pb::WatchRequest, pb::WatchResponse>* WatchService::Watch(
    grpc::CallbackServerContext*) {
  return new Stream(member_, limits_);
}

}  // namespace etcdwire
