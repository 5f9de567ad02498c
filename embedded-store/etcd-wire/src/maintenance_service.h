// etcd's Maintenance service on the store: Status, Defragment, Hash, HashKV, Alarm and the
// Snapshot stream; and the Cluster service's MemberList, which presents the one member.
#pragma once

#include "etcdserverpb/rpc.grpc.pb.h"
#include "member.h"

namespace etcdwire {

class MaintenanceService final : public etcdserverpb::Maintenance::Service {
 public:
  explicit MaintenanceService(Member& member) : member_(member) {}

  grpc::Status Alarm(grpc::ServerContext* context, const etcdserverpb::AlarmRequest* request,
                     etcdserverpb::AlarmResponse* response) override;
  grpc::Status Status(grpc::ServerContext* context, const etcdserverpb::StatusRequest* request,
                      etcdserverpb::StatusResponse* response) override;
  grpc::Status Defragment(grpc::ServerContext* context,
                          const etcdserverpb::DefragmentRequest* request,
                          etcdserverpb::DefragmentResponse* response) override;
  grpc::Status Hash(grpc::ServerContext* context, const etcdserverpb::HashRequest* request,
                    etcdserverpb::HashResponse* response) override;
  grpc::Status HashKV(grpc::ServerContext* context, const etcdserverpb::HashKVRequest* request,
                      etcdserverpb::HashKVResponse* response) override;
  grpc::Status Snapshot(grpc::ServerContext* context, const etcdserverpb::SnapshotRequest* request,
                        grpc::ServerWriter<etcdserverpb::SnapshotResponse>* writer) override;

 private:
  Member& member_;
};

class ClusterService final : public etcdserverpb::Cluster::Service {
 public:
  explicit ClusterService(Member& member) : member_(member) {}

  grpc::Status MemberList(grpc::ServerContext* context,
                          const etcdserverpb::MemberListRequest* request,
                          etcdserverpb::MemberListResponse* response) override;

 private:
  Member& member_;
};

}  // namespace etcdwire
