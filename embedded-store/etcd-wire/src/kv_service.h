// etcd's KV service on the store: Range, Put, DeleteRange, Txn and Compact.
#pragma once

#include "etcdserverpb/rpc.grpc.pb.h"
#include "member.h"

namespace etcdwire {

class KvService final : public etcdserverpb::KV::Service {
 public:
  explicit KvService(Member& member) : member_(member) {}

  grpc::Status Range(grpc::ServerContext* context, const etcdserverpb::RangeRequest* request,
                     etcdserverpb::RangeResponse* response) override;
  grpc::Status Put(grpc::ServerContext* context, const etcdserverpb::PutRequest* request,
                   etcdserverpb::PutResponse* response) override;
  grpc::Status DeleteRange(grpc::ServerContext* context,
                           const etcdserverpb::DeleteRangeRequest* request,
                           etcdserverpb::DeleteRangeResponse* response) override;
  grpc::Status Txn(grpc::ServerContext* context, const etcdserverpb::TxnRequest* request,
                   etcdserverpb::TxnResponse* response) override;
  grpc::Status Compact(grpc::ServerContext* context, const etcdserverpb::CompactionRequest* request,
                       etcdserverpb::CompactionResponse* response) override;

 private:
  Member& member_;
};

}  // namespace etcdwire
