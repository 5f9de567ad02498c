// etcd's Watch service on the store: one bidirectional stream per client carries any number of
// watches (create with filters, prev_kv, progress_notify, fragment; cancel; progress requests).
#pragma once

#include "etcdserverpb/rpc.grpc.pb.h"
#include "member.h"

namespace etcdwire {

struct WatchLimits {
  size_t max_watches = 65536;           // per stream; more are refused (created and canceled)
  size_t max_response_bytes = 1572864;  // a fragmenting watch splits responses above this
};

class WatchService final
    : public etcdserverpb::Watch::WithCallbackMethod_Watch<etcdserverpb::Watch::Service> {
 public:
  WatchService(Member& member, WatchLimits limits) : member_(member), limits_(limits) {}

  grpc::ServerBidiReactor<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>* Watch(
      grpc::CallbackServerContext* context) override;

 private:
  Member& member_;
  WatchLimits limits_;
};

}  // namespace etcdwire
