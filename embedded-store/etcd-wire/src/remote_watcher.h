// One watch over an etcd endpoint's Watch stream: a store::Watcher fed by a reader thread that
// turns etcd's responses into the store's, in a bounded buffer (a full buffer cancels the
// watch, as the store's own watchers are cancelled).
#pragma once

#include <grpcpp/channel.h>

#include <memory>

#include "store/watch.h"

namespace etcdwire {

std::shared_ptr<store::Watcher> open_remote_watch(const std::shared_ptr<grpc::Channel>& channel,
                                                  const store::WatchRequest& request,
                                                  size_t buffer);

}  // namespace etcdwire
