#include "lease_service.h"

#include "common/guard.h"
#include "wire_status.h"

namespace etcdwire {

namespace pb = etcdserverpb;

namespace {

// One LeaseKeepAlive stream: each request renews its lease and is answered before the next is
// read, so a stream holds one request and one response at most. An unknown lease is answered
// with TTL 0, as etcd does; the stream ends when the client closes it or goes away.
class KeepAlive final
    : public grpc::ServerBidiReactor<pb::LeaseKeepAliveRequest, pb::LeaseKeepAliveResponse> {
 public:
  explicit KeepAlive(Member& member) : member_(member) { StartRead(&request_); }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status::OK);  // the client closed its side, or the stream broke
      return;
    }
    grpc::Status failed;
    bool ran = common::run_guarded(
        [&] {
          response_.Clear();
          // The header is taken before the renewal, as etcd does: a revocation at a later
          // revision cannot look older than a renewal the client was told succeeded.
          member_.fill(*response_.mutable_header());
          response_.set_id(request_.id());
          auto renewed = member_.store().lease_keep_alive(request_.id());
          if (renewed.is_ok()) {
            response_.set_ttl(renewed->ttl);
          } else if (renewed.status().code() != store::Code::LeaseNotFound) {
            failed = to_grpc(renewed.status());
          }
        },
        [&](std::string&& text) {
          failed = {grpc::StatusCode::INTERNAL, "etcdserver: internal error: " + text};
        });
    if (!ran || !failed.ok()) {
      Finish(failed);
      return;
    }
    StartWrite(&response_);
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
      return;
    }
    StartRead(&request_);
  }

  void OnDone() override { delete this; }

 private:
  Member& member_;
  pb::LeaseKeepAliveRequest request_;
  pb::LeaseKeepAliveResponse response_;
};

}  // namespace

grpc::Status LeaseService::LeaseGrant(grpc::ServerContext*, const pb::LeaseGrantRequest* request,
                                      pb::LeaseGrantResponse* response) {
  return guarded([&] {
    if (auto refused = member_.writable(); !refused.ok()) {
      return refused;
    }
    store::LeaseGrantRequest grant;
    grant.ttl = request->ttl();
    grant.id = request->id();
    auto result = member_.store().lease_grant(grant);
    if (!result.is_ok()) {
      return to_grpc(result.status());
    }
    member_.fill(*response->mutable_header(), result->header.revision);
    response->set_id(result->id);
    response->set_ttl(result->ttl);
    return grpc::Status::OK;
  });
}

grpc::Status LeaseService::LeaseRevoke(grpc::ServerContext*, const pb::LeaseRevokeRequest* request,
                                       pb::LeaseRevokeResponse* response) {
  return guarded([&] {
    auto result = member_.store().lease_revoke(request->id());
    if (!result.is_ok()) {
      return to_grpc(result.status());
    }
    member_.fill(*response->mutable_header(), result->header.revision);
    return grpc::Status::OK;
  });
}

grpc::ServerBidiReactor<pb::LeaseKeepAliveRequest, pb::LeaseKeepAliveResponse>*
LeaseService::LeaseKeepAlive(grpc::CallbackServerContext*) {
  return new KeepAlive(member_);
}

grpc::Status LeaseService::LeaseTimeToLive(grpc::ServerContext*,
                                           const pb::LeaseTimeToLiveRequest* request,
                                           pb::LeaseTimeToLiveResponse* response) {
  return guarded([&] {
    auto result = member_.store().lease_time_to_live(request->id(), request->keys());
    if (!result.is_ok()) {
      return to_grpc(result.status());
    }
    member_.fill(*response->mutable_header(), result->header.revision);
    response->set_id(result->id);
    response->set_ttl(result->ttl);
    response->set_grantedttl(result->granted_ttl);
    for (const auto& key : result->keys) {
      response->add_keys(key);
    }
    return grpc::Status::OK;
  });
}

grpc::Status LeaseService::LeaseLeases(grpc::ServerContext*, const pb::LeaseLeasesRequest*,
                                       pb::LeaseLeasesResponse* response) {
  return guarded([&] {
    auto result = member_.store().lease_leases();
    if (!result.is_ok()) {
      return to_grpc(result.status());
    }
    member_.fill(*response->mutable_header(), result->header.revision);
    for (const auto& lease : result->leases) {
      response->add_leases()->set_id(lease.id);
    }
    return grpc::Status::OK;
  });
}

}  // namespace etcdwire
