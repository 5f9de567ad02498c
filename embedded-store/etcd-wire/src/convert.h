// Translation between the store's request and response types (store/types.h) and etcd's wire
// messages (etcdserverpb, mvccpb). Both sides use it: the endpoint decodes requests and encodes
// responses, the remote store does the reverse. Field for field; nothing is interpreted here.
#pragma once

#include "etcdserverpb/rpc.pb.h"
#include "mvccpb/kv.pb.h"
#include "store/types.h"
#include "store/watch.h"

namespace etcdwire {

void to_wire(const store::KeyValue& kv, mvccpb::KeyValue& out);
store::KeyValue from_wire(const mvccpb::KeyValue& kv);
void to_wire(const store::Event& event, mvccpb::Event& out);
store::Event from_wire(const mvccpb::Event& event);

store::RangeRequest from_wire(const etcdserverpb::RangeRequest& request);
void to_wire(const store::RangeRequest& request, etcdserverpb::RangeRequest& out);
void to_wire(const store::RangeResponse& response, etcdserverpb::RangeResponse& out);
store::RangeResponse from_wire(const etcdserverpb::RangeResponse& response);

store::PutRequest from_wire(const etcdserverpb::PutRequest& request);
void to_wire(const store::PutRequest& request, etcdserverpb::PutRequest& out);
void to_wire(const store::PutResponse& response, etcdserverpb::PutResponse& out);
store::PutResponse from_wire(const etcdserverpb::PutResponse& response);

store::DeleteRangeRequest from_wire(const etcdserverpb::DeleteRangeRequest& request);
void to_wire(const store::DeleteRangeRequest& request, etcdserverpb::DeleteRangeRequest& out);
void to_wire(const store::DeleteRangeResponse& response, etcdserverpb::DeleteRangeResponse& out);
store::DeleteRangeResponse from_wire(const etcdserverpb::DeleteRangeResponse& response);

// Txns nest (a RequestOp may hold a txn); `depth` counts the levels already entered, and a
// request nested deeper than kMaxTxnDepth is refused by from_wire (false) before any recursion
// could exhaust the stack. The store's operation limit bounds the rest.
inline constexpr int kMaxTxnDepth = 32;
bool from_wire(const etcdserverpb::TxnRequest& request, store::TxnRequest& out, int depth = 0);
void to_wire(const store::TxnRequest& request, etcdserverpb::TxnRequest& out);
void to_wire(const store::TxnResponse& response, etcdserverpb::TxnResponse& out);
bool from_wire(const etcdserverpb::TxnResponse& response, store::TxnResponse& out, int depth = 0);

store::WatchRequest from_wire(const etcdserverpb::WatchCreateRequest& request);
void to_wire(const store::WatchRequest& request, etcdserverpb::WatchCreateRequest& out);

// The response header's revision; the endpoint adds its member's identity.
void to_wire(const store::ResponseHeader& header, etcdserverpb::ResponseHeader& out);

}  // namespace etcdwire
