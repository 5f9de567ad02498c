// What the console's UI thread asks of the network: watch streams per kind, one-off requests,
// and the messages both send back. Session is the interface (tests drive the console's state with
// a fake); ClusterSession is the real one, with a WatchStream per watched kind and a
// RequestWorker, all on background threads.
//
// Thread-safety: a Session is used by one thread (the UI thread); none of its calls waits for
// the network. ClusterSession's destructor stops every thread and waits for them (~100 ms).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "console/client/bounded_queue.h"
#include "console/client/request_worker.h"
#include "console/client/rest_client.h"
#include "console/client/watch_stream.h"

namespace console::client {

class Session {
 public:
  virtual ~Session() = default;

  // Starts a stream for `target` (replacing one with the same key) and returns its stream_id;
  // its messages carry that id.
  virtual uint64_t watch(WatchTarget target) = 0;
  virtual void unwatch(const std::string& key) = 0;
  // Queues a request; its id, or 0 when too many are outstanding.
  virtual uint64_t submit(Request request) = 0;
  // Moves up to `max_messages` stream messages and every reply that has come back.
  virtual void drain(std::vector<StreamMessage>& messages, size_t max_messages,
                     std::vector<ApiReply>& replies) = 0;
  // Requests sent or queued and not answered yet.
  virtual size_t requests_in_flight() const = 0;
  // Stream messages lost because the queue was full (each loss makes its stream list again).
  virtual uint64_t dropped_messages() const = 0;
  virtual const ClusterAccess& access() const = 0;
};

struct SessionOptions {
  size_t message_capacity = 100000;  // stream messages waiting for the UI
  size_t request_capacity = 64;      // outstanding requests
  ClientOptions requests;            // the request worker's deadline and size limit
  WatchOptions watches;
  // Runs on a network thread when messages or replies arrive after the UI drained everything,
  // so a UI waiting for events can wake (e.g. glfwPostEmptyEvent). Thread-safe and cheap.
  std::function<void()> wake;
};

class ClusterSession final : public Session {
 public:
  explicit ClusterSession(ClusterAccess access, SessionOptions options = {});
  ~ClusterSession() override;

  uint64_t watch(WatchTarget target) override;
  void unwatch(const std::string& key) override;
  uint64_t submit(Request request) override;
  void drain(std::vector<StreamMessage>& messages, size_t max_messages,
             std::vector<ApiReply>& replies) override;
  size_t requests_in_flight() const override { return worker_.in_flight(); }
  uint64_t dropped_messages() const override { return messages_.dropped(); }
  const ClusterAccess& access() const override { return access_; }

 private:
  void retire(const std::string& key);

  const ClusterAccess access_;
  const SessionOptions options_;
  // Declared before the streams, which push into it, so that it outlives them.
  BoundedQueue<StreamMessage> messages_;
  RequestWorker worker_;
  uint64_t next_stream_id_ = 1;
  std::map<std::string, std::unique_ptr<WatchStream>> streams_;  // by key; UI thread only
  // Stopped streams whose threads are still winding down; destroyed once finished, so that
  // unwatch() never waits for a thread.
  std::vector<std::unique_ptr<WatchStream>> retiring_;
};

}  // namespace console::client
