#include "console/client/request_worker.h"

#include <chrono>

#include "client/guard.h"

namespace console::client {

namespace {

ClientOptions with_cancel(ClientOptions options, const std::atomic<bool>* cancel) {
  options.cancel = cancel;
  return options;
}

}  // namespace

RequestWorker::RequestWorker(ClusterAccess access, ClientOptions options, size_t capacity,
                             std::function<void()> wake)
    : capacity_(capacity == 0 ? 1 : capacity),
      client_(std::move(access), with_cancel(std::move(options), &stop_)),
      requests_(capacity_),
      replies_(capacity_, std::move(wake)),
      thread_([this] { run(); }) {}

RequestWorker::~RequestWorker() {
  stop_ = true;
  requests_.close();
  thread_.join();
}

uint64_t RequestWorker::submit(Request request) {
  // Reserve a slot first so that the reply queue, as large as the limit, always has room.
  size_t outstanding = outstanding_.load();
  do {
    if (outstanding >= capacity_) {
      return 0;
    }
  } while (!outstanding_.compare_exchange_weak(outstanding, outstanding + 1));
  const uint64_t id = next_id_++;
  ++in_flight_;
  if (!requests_.try_push(Queued{id, std::move(request)})) {
    --in_flight_;
    --outstanding_;
    return 0;
  }
  return id;
}

size_t RequestWorker::drain(std::vector<ApiReply>& out) {
  const size_t n = replies_.drain(out);
  outstanding_ -= n;
  return n;
}

void RequestWorker::run() {
  while (!stop_) {
    auto queued = requests_.pop_wait(std::chrono::milliseconds(250));
    if (!queued) {
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    ApiReply reply;
    reply.id = queued->id;
    const std::string what = queued->request.method + " " + queued->request.target;
    if (auto error = detail::run_guarded(what, [&] {
          auto response = client_.request(queued->request);
          reply.sent = response.ok();
          if (response.ok()) {
            reply.response = std::move(*response);
          } else {
            reply.error = response.error();
          }
        })) {
      reply.error = std::move(*error);
      reply.sent = false;  // completes with the error; the next request goes on
      reply.response = Response{};
    }
    reply.elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - start)
                           .count();
    --in_flight_;
    // Cannot be full (see submit()); the UI's wake-up it may run is guarded like the request.
    detail::run_guarded("request worker: reply to " + what,
                        [&] { replies_.try_push(std::move(reply)); });
  }
}

}  // namespace console::client
