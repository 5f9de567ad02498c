#include "kv_service.h"

#include <atomic>
#include <memory>

#include "convert.h"
#include "wire_status.h"

namespace etcdwire {

namespace pb = etcdserverpb;

namespace {

// Whether a txn writes (a NOSPACE alarm refuses those, as etcd does, but lets reads through).
bool writes(const store::TxnRequest& txn) {
  for (const auto* ops : {&txn.success, &txn.failure}) {
    for (const auto& op : *ops) {
      if (op.kind == store::RequestOp::Kind::Put ||
          (op.kind == store::RequestOp::Kind::Txn && op.txn && writes(*op.txn))) {
        return true;
      }
    }
  }
  return false;
}

void stamp(const Member& member, const store::TxnResponse& txn, pb::TxnResponse& out);

// Every header of a txn's nested responses carries the member's identity too.
void stamp_ops(const Member& member, const store::TxnResponse& txn, pb::TxnResponse& out) {
  for (int i = 0; i < out.responses_size(); ++i) {
    auto* op = out.mutable_responses(i);
    auto revision = txn.header.revision;
    switch (op->response_case()) {
      case pb::ResponseOp::kResponseRange:
        member.fill(*op->mutable_response_range()->mutable_header(), revision);
        break;
      case pb::ResponseOp::kResponsePut:
        member.fill(*op->mutable_response_put()->mutable_header(), revision);
        break;
      case pb::ResponseOp::kResponseDeleteRange:
        member.fill(*op->mutable_response_delete_range()->mutable_header(), revision);
        break;
      case pb::ResponseOp::kResponseTxn:
        if (static_cast<size_t>(i) < txn.responses.size() && txn.responses[i].txn) {
          stamp(member, *txn.responses[i].txn, *op->mutable_response_txn());
        }
        break;
      case pb::ResponseOp::RESPONSE_NOT_SET:
        break;
    }
  }
}

void stamp(const Member& member, const store::TxnResponse& txn, pb::TxnResponse& out) {
  member.fill(*out.mutable_header(), txn.header.revision);
  stamp_ops(member, txn, out);
}

// Runs `start` behind the exception barrier with the call's completion: `start` either refuses
// (a non-OK Status, the call finishes at once) or hands the completion to the store, which
// finishes the call once the write is done. The completion runs once at most.
template <typename Start>
grpc::ServerUnaryReactor* write(grpc::CallbackServerContext* context, Start start) {
  auto* reactor = context->DefaultReactor();
  auto finished = std::make_shared<std::atomic<bool>>(false);
  auto finish = [reactor, finished](const grpc::Status& status) {
    if (!finished->exchange(true)) {
      reactor->Finish(status);
    }
  };
  auto refused = guarded([&] { return start(finish); });
  if (!refused.ok()) {
    finish(refused);
  }
  return reactor;
}

// The store's callback for a write: fills the wire response with `fill` when the write
// succeeded, then finishes the call with the outcome.
template <typename Response, typename Finish, typename Fill>
store::Store::Callback<Response> answer(Finish finish, Fill fill) {
  return [finish = std::move(finish), fill = std::move(fill)](store::Result<Response> result) {
    finish(guarded([&] {
      if (!result.is_ok()) {
        return to_grpc(result.status());
      }
      fill(result.value());
      return grpc::Status::OK;
    }));
  };
}

}  // namespace

grpc::Status KvService::Range(grpc::ServerContext*, const pb::RangeRequest* request,
                              pb::RangeResponse* response) {
  return guarded([&] {
    auto result = member_.store().range(from_wire(*request));
    if (!result.is_ok()) {
      return to_grpc(result.status());
    }
    to_wire(result.value(), *response);
    member_.fill(*response->mutable_header(), result->header.revision);
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* KvService::Put(grpc::CallbackServerContext* context,
                                         const pb::PutRequest* request, pb::PutResponse* response) {
  return write(context, [&](auto done) {
    if (auto refused = member_.writable(); !refused.ok()) {
      return refused;
    }
    member_.store().put_async(
        from_wire(*request), answer<store::PutResponse>(std::move(done), [this, response](auto& r) {
          to_wire(r, *response);
          member_.fill(*response->mutable_header(), r.header.revision);
        }));
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* KvService::DeleteRange(grpc::CallbackServerContext* context,
                                                 const pb::DeleteRangeRequest* request,
                                                 pb::DeleteRangeResponse* response) {
  return write(context, [&](auto done) {
    member_.store().delete_range_async(
        from_wire(*request),
        answer<store::DeleteRangeResponse>(std::move(done), [this, response](auto& r) {
          to_wire(r, *response);
          member_.fill(*response->mutable_header(), r.header.revision);
        }));
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* KvService::Txn(grpc::CallbackServerContext* context,
                                         const pb::TxnRequest* request, pb::TxnResponse* response) {
  return write(context, [&](auto done) {
    store::TxnRequest txn;
    if (!from_wire(*request, txn)) {
      return key_not_found_error();
    }
    if (writes(txn)) {
      if (auto refused = member_.writable(); !refused.ok()) {
        return refused;
      }
    }
    member_.store().txn_async(
        std::move(txn), answer<store::TxnResponse>(std::move(done), [this, response](auto& r) {
          to_wire(r, *response);
          stamp(member_, r, *response);
        }));
    return grpc::Status::OK;
  });
}

grpc::Status KvService::Compact(grpc::ServerContext*, const pb::CompactionRequest* request,
                                pb::CompactionResponse* response) {
  return guarded([&] {
    store::CompactionRequest compaction;
    compaction.revision = request->revision();
    compaction.physical = request->physical();
    auto result = member_.store().compact(compaction);
    if (!result.is_ok()) {
      return to_grpc(result.status());
    }
    member_.fill(*response->mutable_header(), result->header.revision);
    return grpc::Status::OK;
  });
}

}  // namespace etcdwire
