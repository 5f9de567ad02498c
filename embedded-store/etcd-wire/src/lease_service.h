// etcd's Lease service on the store: LeaseGrant, LeaseRevoke, the LeaseKeepAlive stream,
// LeaseTimeToLive and LeaseLeases.
#pragma once

#include "etcdserverpb/rpc.grpc.pb.h"
#include "member.h"

namespace etcdwire {

class LeaseService final
    : public etcdserverpb::Lease::WithCallbackMethod_LeaseKeepAlive<etcdserverpb::Lease::Service> {
 public:
  explicit LeaseService(Member& member) : member_(member) {}

  grpc::Status LeaseGrant(grpc::ServerContext* context,
                          const etcdserverpb::LeaseGrantRequest* request,
                          etcdserverpb::LeaseGrantResponse* response) override;
  grpc::Status LeaseRevoke(grpc::ServerContext* context,
                           const etcdserverpb::LeaseRevokeRequest* request,
                           etcdserverpb::LeaseRevokeResponse* response) override;
  grpc::ServerBidiReactor<etcdserverpb::LeaseKeepAliveRequest,
                          etcdserverpb::LeaseKeepAliveResponse>*
  LeaseKeepAlive(grpc::CallbackServerContext* context) override;
  grpc::Status LeaseTimeToLive(grpc::ServerContext* context,
                               const etcdserverpb::LeaseTimeToLiveRequest* request,
                               etcdserverpb::LeaseTimeToLiveResponse* response) override;
  grpc::Status LeaseLeases(grpc::ServerContext* context,
                           const etcdserverpb::LeaseLeasesRequest* request,
                           etcdserverpb::LeaseLeasesResponse* response) override;

 private:
  Member& member_;
};

}  // namespace etcdwire
