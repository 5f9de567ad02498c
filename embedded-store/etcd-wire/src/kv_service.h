// etcd's KV service on the store: Range, Put, DeleteRange, Txn and Compact.
#pragma once

#include "etcdserverpb/rpc.grpc.pb.h"
#include "member.h"

namespace etcdwire {

// The writes (Put, DeleteRange, Txn) are callback methods: a call waits for its group commit
// without holding a thread, and the commit loop finishes it. Range and Compact run on the
// synchronous server's threads.
using KvBase =
    etcdserverpb::KV::WithCallbackMethod_Put<etcdserverpb::KV::WithCallbackMethod_DeleteRange<
        etcdserverpb::KV::WithCallbackMethod_Txn<etcdserverpb::KV::Service>>>;

class KvService final : public KvBase {
 public:
  explicit KvService(Member& member) : member_(member) {}

  grpc::Status Range(grpc::ServerContext* context, const etcdserverpb::RangeRequest* request,
                     etcdserverpb::RangeResponse* response) override;
  grpc::ServerUnaryReactor* Put(grpc::CallbackServerContext* context,
                                const etcdserverpb::PutRequest* request,
                                etcdserverpb::PutResponse* response) override;
  grpc::ServerUnaryReactor* DeleteRange(grpc::CallbackServerContext* context,
                                        const etcdserverpb::DeleteRangeRequest* request,
                                        etcdserverpb::DeleteRangeResponse* response) override;
  grpc::ServerUnaryReactor* Txn(grpc::CallbackServerContext* context,
                                const etcdserverpb::TxnRequest* request,
                                etcdserverpb::TxnResponse* response) override;
  grpc::Status Compact(grpc::ServerContext* context, const etcdserverpb::CompactionRequest* request,
                       etcdserverpb::CompactionResponse* response) override;

 private:
  Member& member_;
};

}  // namespace etcdwire
