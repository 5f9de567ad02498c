// The console's request worker: one background thread that sends the requests the UI asks for
// (discovery, /version, apply, delete) so that the UI thread never waits for the network.
//
// Requests go in through a bounded queue and come back, one reply each, through another. At most
// `capacity` requests are outstanding (queued, being sent, or replied but not drained); submit()
// refuses more, so the reply queue can never be full and no reply is ever lost.
//
// Thread-safety: submit(), drain() and the counters may be called from any thread (the UI thread
// in practice). The destructor cancels the request being sent (within ~100 ms) and joins.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "console/client/bounded_queue.h"
#include "console/client/rest_client.h"

namespace console::client {

struct ApiReply {
  uint64_t id = 0;    // submit()'s
  bool sent = false;  // false: a transport failure (see `error`); true: `response` is the answer
  std::string error;
  Response response;
  int64_t elapsed_ms = 0;
};

class RequestWorker {
 public:
  // `wake` (optional) runs on the worker thread when a reply arrives for a drained queue; see
  // BoundedQueue.
  RequestWorker(ClusterAccess access, ClientOptions options, size_t capacity = 64,
                std::function<void()> wake = {});
  ~RequestWorker();
  RequestWorker(const RequestWorker&) = delete;
  RequestWorker& operator=(const RequestWorker&) = delete;

  // Queues `request`; returns its id (never 0), or 0 when `capacity` requests are outstanding.
  uint64_t submit(Request request);
  // Moves the replies that have come back to `out`; never waits.
  size_t drain(std::vector<ApiReply>& out);
  // Submitted and not yet replied to.
  size_t in_flight() const { return in_flight_.load(); }

 private:
  struct Queued {
    uint64_t id = 0;
    Request request;
  };
  void run();

  const size_t capacity_;
  RestClient client_;  // used by the worker thread only
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> next_id_{1};
  std::atomic<size_t> outstanding_{0};
  std::atomic<size_t> in_flight_{0};
  BoundedQueue<Queued> requests_;
  BoundedQueue<ApiReply> replies_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace console::client
