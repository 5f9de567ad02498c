#include "console/client/session.h"

namespace console::client {

ClusterSession::ClusterSession(ClusterAccess access, SessionOptions options)
    : access_(std::move(access)),
      options_(std::move(options)),
      messages_(options_.message_capacity, options_.wake),
      worker_(access_, options_.requests, options_.request_capacity, options_.wake) {}

ClusterSession::~ClusterSession() {
  // Ask every stream first so that they wind down together rather than one after another.
  for (auto& [key, stream] : streams_) {
    stream->stop();
  }
  streams_.clear();
  retiring_.clear();
}

void ClusterSession::retire(const std::string& key) {
  auto it = streams_.find(key);
  if (it == streams_.end()) {
    return;
  }
  it->second->stop();
  retiring_.push_back(std::move(it->second));
  streams_.erase(it);
}

uint64_t ClusterSession::watch(WatchTarget target) {
  target.stream_id = next_stream_id_++;
  const uint64_t id = target.stream_id;
  const std::string key = target.key;
  retire(key);
  streams_[key] =
      std::make_unique<WatchStream>(access_, std::move(target), options_.watches, messages_);
  return id;
}

void ClusterSession::unwatch(const std::string& key) {
  retire(key);
}

uint64_t ClusterSession::submit(Request request) {
  return worker_.submit(std::move(request));
}

void ClusterSession::drain(std::vector<StreamMessage>& messages, size_t max_messages,
                           std::vector<ApiReply>& replies) {
  messages_.drain(messages, max_messages);
  worker_.drain(replies);
  std::erase_if(retiring_, [](const auto& stream) { return stream->finished(); });
}

}  // namespace console::client
