#include "remote_watcher.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "common/guard.h"
#include "convert.h"
#include "etcdserverpb/rpc.grpc.pb.h"

namespace etcdwire {

namespace pb = etcdserverpb;

namespace {

class RemoteWatcher final : public store::Watcher {
 public:
  RemoteWatcher(const std::shared_ptr<grpc::Channel>& channel, size_t buffer)
      : stub_(pb::Watch::NewStub(channel)), capacity_(buffer) {}

  ~RemoteWatcher() override {
    context_.TryCancel();
    if (reader_.joinable()) {
      if (reader_.get_id() == std::this_thread::get_id()) {
        reader_.detach();  // the last reference went away in a notify: the thread ends alone
      } else {
        reader_.join();
      }
    }
  }

  void start(const store::WatchRequest& request) {
    stream_ = stub_->Watch(&context_);
    pb::WatchRequest create;
    to_wire(request, *create.mutable_create_request());
    {
      std::lock_guard lock(write_mutex_);
      if (!stream_->Write(create)) {
        end("etcdserver: the watch stream could not be opened");
        return;
      }
    }
    reader_ = std::thread([this] {
      common::run_guarded([this] { read_loop(); },
                          [this](std::string&& text) { end("watch reader failed: " + text); });
    });
  }

  int64_t id() const override {
    std::lock_guard lock(mutex_);
    return id_;
  }

  bool next(store::WatchResponse& out, std::chrono::milliseconds timeout) override {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, timeout, [this] { return !queue_.empty() || ended_; });
    return pop_locked(out);
  }

  bool try_next(store::WatchResponse& out) override {
    std::lock_guard lock(mutex_);
    return pop_locked(out);
  }

  void set_notify(std::function<void()> notify) override {
    bool pending = false;
    {
      std::lock_guard lock(mutex_);
      notify_ = notify;
      pending = !queue_.empty();
    }
    if (pending && notify) {
      call(notify);
    }
  }

  void request_progress() override {
    pb::WatchRequest progress;
    progress.mutable_progress_request();
    std::lock_guard lock(write_mutex_);
    if (stream_) {
      stream_->Write(progress);
    }
  }

  void cancel() override {
    int64_t id = 0;
    {
      std::lock_guard lock(mutex_);
      if (ended_ || cancel_sent_) {
        return;
      }
      cancel_sent_ = true;
      id = id_;
    }
    pb::WatchRequest request;
    request.mutable_cancel_request()->set_watch_id(id);
    std::lock_guard lock(write_mutex_);
    if (stream_ && !stream_->Write(request)) {
      context_.TryCancel();
    }
  }

  bool finished() const override {
    std::lock_guard lock(mutex_);
    return ended_ && queue_.empty();
  }

 private:
  void read_loop() {
    pb::WatchResponse response;
    while (stream_->Read(&response)) {
      store::WatchResponse converted;
      converted.header.revision = response.header().revision();
      converted.watch_id = response.watch_id();
      converted.created = response.created();
      converted.canceled = response.canceled();
      converted.compact_revision = response.compact_revision();
      converted.cancel_reason = response.cancel_reason();
      for (const auto& event : response.events()) {
        converted.events.push_back(from_wire(event));
      }
      if (response.fragment()) {
        fragments_.push_back(std::move(converted));
        continue;
      }
      if (!fragments_.empty()) {  // the last part: one response again, as the store sends it
        for (auto it = fragments_.rbegin(); it != fragments_.rend(); ++it) {
          converted.events.insert(converted.events.begin(), it->events.begin(), it->events.end());
        }
        fragments_.clear();
      }
      bool canceled = converted.canceled;
      if (!push(std::move(converted)) || canceled) {
        break;
      }
    }
    context_.TryCancel();
    grpc::Status status = stream_->Finish();
    end(status.ok() || status.error_code() == grpc::StatusCode::CANCELLED ? std::string()
                                                                          : status.error_message());
  }

  // Queues a response; false (and the watch ends) when the buffer is full.
  bool push(store::WatchResponse response) {
    std::function<void()> notify;
    {
      std::lock_guard lock(mutex_);
      if (ended_) {
        return false;
      }
      if (response.created && id_ == 0) {
        id_ = response.watch_id;
      }
      if (queue_.size() >= capacity_) {
        store::WatchResponse last;
        last.header.revision = response.header.revision;
        last.watch_id = id_;
        last.canceled = true;
        last.cancel_reason = "the watcher fell behind: its buffer of " + std::to_string(capacity_) +
                             " responses is full";
        queue_.push_back(std::move(last));
        ended_ = true;
      } else {
        bool canceled = response.canceled;
        queue_.push_back(std::move(response));
        ended_ = canceled;
      }
      notify = notify_;
      cv_.notify_all();
    }
    call(notify);
    std::lock_guard lock(mutex_);
    return !ended_;
  }

  // Ends the watch with a last canceled response, unless one was queued already.
  void end(const std::string& reason) {
    std::function<void()> notify;
    {
      std::lock_guard lock(mutex_);
      if (ended_) {
        return;
      }
      store::WatchResponse last;
      last.watch_id = id_;
      last.canceled = true;
      last.cancel_reason = reason;
      queue_.push_back(std::move(last));
      ended_ = true;
      notify = notify_;
      cv_.notify_all();
    }
    call(notify);
  }

  static void call(const std::function<void()>& notify) {
    if (notify) {
      common::run_guarded(notify, [](std::string&&) {});
    }
  }

  bool pop_locked(store::WatchResponse& out) {
    if (queue_.empty()) {
      return false;
    }
    out = std::move(queue_.front());
    queue_.pop_front();
    return true;
  }

  std::unique_ptr<pb::Watch::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<pb::WatchRequest, pb::WatchResponse>> stream_;
  std::mutex write_mutex_;  // one writer at a time on the stream
  std::thread reader_;
  std::vector<store::WatchResponse> fragments_;  // reader thread only
  const size_t capacity_;

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<store::WatchResponse> queue_;
  std::function<void()> notify_;
  int64_t id_ = 0;
  bool ended_ = false;
  bool cancel_sent_ = false;
};

}  // namespace

std::shared_ptr<store::Watcher> open_remote_watch(const std::shared_ptr<grpc::Channel>& channel,
                                                  const store::WatchRequest& request,
                                                  size_t buffer) {
  auto watcher = std::make_shared<RemoteWatcher>(channel, buffer);
  watcher->start(request);
  return watcher;
}

}  // namespace etcdwire
