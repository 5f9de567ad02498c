#include "convert.h"

#include <memory>

namespace etcdwire {

namespace pb = etcdserverpb;

void to_wire(const store::KeyValue& kv, mvccpb::KeyValue& out) {
  out.set_key(kv.key);
  out.set_create_revision(kv.create_revision);
  out.set_mod_revision(kv.mod_revision);
  out.set_version(kv.version);
  out.set_value(kv.value);
  out.set_lease(kv.lease);
}

store::KeyValue from_wire(const mvccpb::KeyValue& kv) {
  store::KeyValue out;
  out.key = kv.key();
  out.create_revision = kv.create_revision();
  out.mod_revision = kv.mod_revision();
  out.version = kv.version();
  out.value = kv.value();
  out.lease = kv.lease();
  return out;
}

void to_wire(const store::Event& event, mvccpb::Event& out) {
  out.set_type(event.type == store::Event::Type::Put ? mvccpb::Event::PUT : mvccpb::Event::DELETE);
  to_wire(event.kv, *out.mutable_kv());
  if (event.prev_kv) {
    to_wire(*event.prev_kv, *out.mutable_prev_kv());
  }
}

store::Event from_wire(const mvccpb::Event& event) {
  store::Event out;
  out.type =
      event.type() == mvccpb::Event::DELETE ? store::Event::Type::Delete : store::Event::Type::Put;
  out.kv = from_wire(event.kv());
  if (event.has_prev_kv()) {
    out.prev_kv = from_wire(event.prev_kv());
  }
  return out;
}

void to_wire(const store::ResponseHeader& header, pb::ResponseHeader& out) {
  out.set_revision(header.revision);
}

// Range ---------------------------------------------------------------------------------------

store::RangeRequest from_wire(const pb::RangeRequest& request) {
  store::RangeRequest out;
  out.key = request.key();
  out.range_end = request.range_end();
  out.limit = request.limit();
  out.revision = request.revision();
  switch (request.sort_order()) {
    case pb::RangeRequest::ASCEND:
      out.sort_order = store::RangeRequest::SortOrder::Ascend;
      break;
    case pb::RangeRequest::DESCEND:
      out.sort_order = store::RangeRequest::SortOrder::Descend;
      break;
    default:
      out.sort_order = store::RangeRequest::SortOrder::None;
  }
  switch (request.sort_target()) {
    case pb::RangeRequest::VERSION:
      out.sort_target = store::RangeRequest::SortTarget::Version;
      break;
    case pb::RangeRequest::CREATE:
      out.sort_target = store::RangeRequest::SortTarget::Create;
      break;
    case pb::RangeRequest::MOD:
      out.sort_target = store::RangeRequest::SortTarget::Mod;
      break;
    case pb::RangeRequest::VALUE:
      out.sort_target = store::RangeRequest::SortTarget::Value;
      break;
    default:
      out.sort_target = store::RangeRequest::SortTarget::Key;
  }
  out.serializable = request.serializable();
  out.keys_only = request.keys_only();
  out.count_only = request.count_only();
  out.min_mod_revision = request.min_mod_revision();
  out.max_mod_revision = request.max_mod_revision();
  out.min_create_revision = request.min_create_revision();
  out.max_create_revision = request.max_create_revision();
  return out;
}

void to_wire(const store::RangeRequest& request, pb::RangeRequest& out) {
  out.set_key(request.key);
  out.set_range_end(request.range_end);
  out.set_limit(request.limit);
  out.set_revision(request.revision);
  switch (request.sort_order) {
    case store::RangeRequest::SortOrder::None:
      out.set_sort_order(pb::RangeRequest::NONE);
      break;
    case store::RangeRequest::SortOrder::Ascend:
      out.set_sort_order(pb::RangeRequest::ASCEND);
      break;
    case store::RangeRequest::SortOrder::Descend:
      out.set_sort_order(pb::RangeRequest::DESCEND);
      break;
  }
  switch (request.sort_target) {
    case store::RangeRequest::SortTarget::Key:
      out.set_sort_target(pb::RangeRequest::KEY);
      break;
    case store::RangeRequest::SortTarget::Version:
      out.set_sort_target(pb::RangeRequest::VERSION);
      break;
    case store::RangeRequest::SortTarget::Create:
      out.set_sort_target(pb::RangeRequest::CREATE);
      break;
    case store::RangeRequest::SortTarget::Mod:
      out.set_sort_target(pb::RangeRequest::MOD);
      break;
    case store::RangeRequest::SortTarget::Value:
      out.set_sort_target(pb::RangeRequest::VALUE);
      break;
  }
  out.set_serializable(request.serializable);
  out.set_keys_only(request.keys_only);
  out.set_count_only(request.count_only);
  out.set_min_mod_revision(request.min_mod_revision);
  out.set_max_mod_revision(request.max_mod_revision);
  out.set_min_create_revision(request.min_create_revision);
  out.set_max_create_revision(request.max_create_revision);
}

void to_wire(const store::RangeResponse& response, pb::RangeResponse& out) {
  to_wire(response.header, *out.mutable_header());
  out.mutable_kvs()->Reserve(static_cast<int>(response.kvs.size()));
  for (const auto& kv : response.kvs) {
    to_wire(kv, *out.add_kvs());
  }
  out.set_more(response.more);
  out.set_count(response.count);
}

store::RangeResponse from_wire(const pb::RangeResponse& response) {
  store::RangeResponse out;
  out.header.revision = response.header().revision();
  out.kvs.reserve(static_cast<size_t>(response.kvs_size()));
  for (const auto& kv : response.kvs()) {
    out.kvs.push_back(from_wire(kv));
  }
  out.more = response.more();
  out.count = response.count();
  return out;
}

// Put and delete ------------------------------------------------------------------------------

store::PutRequest from_wire(const pb::PutRequest& request) {
  store::PutRequest out;
  out.key = request.key();
  out.value = request.value();
  out.lease = request.lease();
  out.prev_kv = request.prev_kv();
  out.ignore_value = request.ignore_value();
  out.ignore_lease = request.ignore_lease();
  return out;
}

void to_wire(const store::PutRequest& request, pb::PutRequest& out) {
  out.set_key(request.key);
  out.set_value(request.value);
  out.set_lease(request.lease);
  out.set_prev_kv(request.prev_kv);
  out.set_ignore_value(request.ignore_value);
  out.set_ignore_lease(request.ignore_lease);
}

void to_wire(const store::PutResponse& response, pb::PutResponse& out) {
  to_wire(response.header, *out.mutable_header());
  if (response.prev_kv) {
    to_wire(*response.prev_kv, *out.mutable_prev_kv());
  }
}

store::PutResponse from_wire(const pb::PutResponse& response) {
  store::PutResponse out;
  out.header.revision = response.header().revision();
  if (response.has_prev_kv()) {
    out.prev_kv = from_wire(response.prev_kv());
  }
  return out;
}

store::DeleteRangeRequest from_wire(const pb::DeleteRangeRequest& request) {
  store::DeleteRangeRequest out;
  out.key = request.key();
  out.range_end = request.range_end();
  out.prev_kv = request.prev_kv();
  return out;
}

void to_wire(const store::DeleteRangeRequest& request, pb::DeleteRangeRequest& out) {
  out.set_key(request.key);
  out.set_range_end(request.range_end);
  out.set_prev_kv(request.prev_kv);
}

void to_wire(const store::DeleteRangeResponse& response, pb::DeleteRangeResponse& out) {
  to_wire(response.header, *out.mutable_header());
  out.set_deleted(response.deleted);
  for (const auto& kv : response.prev_kvs) {
    to_wire(kv, *out.add_prev_kvs());
  }
}

store::DeleteRangeResponse from_wire(const pb::DeleteRangeResponse& response) {
  store::DeleteRangeResponse out;
  out.header.revision = response.header().revision();
  out.deleted = response.deleted();
  for (const auto& kv : response.prev_kvs()) {
    out.prev_kvs.push_back(from_wire(kv));
  }
  return out;
}

// Txn -----------------------------------------------------------------------------------------

namespace {

// The overloads below would hide the public ones of the same names.
using ::etcdwire::from_wire;
using ::etcdwire::to_wire;

store::Compare from_wire(const pb::Compare& compare) {
  store::Compare out;
  switch (compare.result()) {
    case pb::Compare::GREATER:
      out.result = store::Compare::Result::Greater;
      break;
    case pb::Compare::LESS:
      out.result = store::Compare::Result::Less;
      break;
    case pb::Compare::NOT_EQUAL:
      out.result = store::Compare::Result::NotEqual;
      break;
    default:
      out.result = store::Compare::Result::Equal;
  }
  switch (compare.target()) {
    case pb::Compare::CREATE:
      out.target = store::Compare::Target::Create;
      break;
    case pb::Compare::MOD:
      out.target = store::Compare::Target::Mod;
      break;
    case pb::Compare::VALUE:
      out.target = store::Compare::Target::Value;
      break;
    case pb::Compare::LEASE:
      out.target = store::Compare::Target::Lease;
      break;
    default:
      out.target = store::Compare::Target::Version;
  }
  out.key = compare.key();
  out.range_end = compare.range_end();
  out.version = compare.version();
  out.create_revision = compare.create_revision();
  out.mod_revision = compare.mod_revision();
  out.value = compare.value();
  out.lease = compare.lease();
  return out;
}

void to_wire(const store::Compare& compare, pb::Compare& out) {
  switch (compare.result) {
    case store::Compare::Result::Equal:
      out.set_result(pb::Compare::EQUAL);
      break;
    case store::Compare::Result::Greater:
      out.set_result(pb::Compare::GREATER);
      break;
    case store::Compare::Result::Less:
      out.set_result(pb::Compare::LESS);
      break;
    case store::Compare::Result::NotEqual:
      out.set_result(pb::Compare::NOT_EQUAL);
      break;
  }
  out.set_key(compare.key);
  out.set_range_end(compare.range_end);
  // The target names which member of the union is set.
  switch (compare.target) {
    case store::Compare::Target::Version:
      out.set_target(pb::Compare::VERSION);
      out.set_version(compare.version);
      break;
    case store::Compare::Target::Create:
      out.set_target(pb::Compare::CREATE);
      out.set_create_revision(compare.create_revision);
      break;
    case store::Compare::Target::Mod:
      out.set_target(pb::Compare::MOD);
      out.set_mod_revision(compare.mod_revision);
      break;
    case store::Compare::Target::Value:
      out.set_target(pb::Compare::VALUE);
      out.set_value(compare.value);
      break;
    case store::Compare::Target::Lease:
      out.set_target(pb::Compare::LEASE);
      out.set_lease(compare.lease);
      break;
  }
}

bool from_wire(const pb::RequestOp& op, store::RequestOp& out, int depth) {
  switch (op.request_case()) {
    case pb::RequestOp::kRequestRange:
      out = store::RequestOp::of(from_wire(op.request_range()));
      return true;
    case pb::RequestOp::kRequestPut:
      out = store::RequestOp::of(from_wire(op.request_put()));
      return true;
    case pb::RequestOp::kRequestDeleteRange:
      out = store::RequestOp::of(from_wire(op.request_delete_range()));
      return true;
    case pb::RequestOp::kRequestTxn: {
      store::TxnRequest nested;
      if (!from_wire(op.request_txn(), nested, depth + 1)) {
        return false;
      }
      out = store::RequestOp::of(std::move(nested));
      return true;
    }
    case pb::RequestOp::REQUEST_NOT_SET:
      break;
  }
  return false;  // etcd answers an empty operation "key not found"
}

void to_wire(const store::RequestOp& op, pb::RequestOp& out) {
  switch (op.kind) {
    case store::RequestOp::Kind::Range:
      to_wire(op.range, *out.mutable_request_range());
      break;
    case store::RequestOp::Kind::Put:
      to_wire(op.put, *out.mutable_request_put());
      break;
    case store::RequestOp::Kind::DeleteRange:
      to_wire(op.delete_range, *out.mutable_request_delete_range());
      break;
    case store::RequestOp::Kind::Txn:
      if (op.txn) {
        to_wire(*op.txn, *out.mutable_request_txn());
      }
      break;
  }
}

void to_wire(const store::ResponseOp& op, pb::ResponseOp& out) {
  switch (op.kind) {
    case store::RequestOp::Kind::Range:
      to_wire(op.range, *out.mutable_response_range());
      break;
    case store::RequestOp::Kind::Put:
      to_wire(op.put, *out.mutable_response_put());
      break;
    case store::RequestOp::Kind::DeleteRange:
      to_wire(op.delete_range, *out.mutable_response_delete_range());
      break;
    case store::RequestOp::Kind::Txn:
      if (op.txn) {
        to_wire(*op.txn, *out.mutable_response_txn());
      }
      break;
  }
}

bool from_wire(const pb::ResponseOp& op, store::ResponseOp& out, int depth) {
  switch (op.response_case()) {
    case pb::ResponseOp::kResponseRange:
      out.kind = store::RequestOp::Kind::Range;
      out.range = from_wire(op.response_range());
      return true;
    case pb::ResponseOp::kResponsePut:
      out.kind = store::RequestOp::Kind::Put;
      out.put = from_wire(op.response_put());
      return true;
    case pb::ResponseOp::kResponseDeleteRange:
      out.kind = store::RequestOp::Kind::DeleteRange;
      out.delete_range = from_wire(op.response_delete_range());
      return true;
    case pb::ResponseOp::kResponseTxn:
      out.kind = store::RequestOp::Kind::Txn;
      out.txn = std::make_shared<store::TxnResponse>();
      return from_wire(op.response_txn(), *out.txn, depth + 1);
    case pb::ResponseOp::RESPONSE_NOT_SET:
      break;
  }
  return false;
}

}  // namespace

bool from_wire(const pb::TxnRequest& request, store::TxnRequest& out, int depth) {
  if (depth > kMaxTxnDepth) {
    return false;
  }
  out.compare.reserve(static_cast<size_t>(request.compare_size()));
  for (const auto& compare : request.compare()) {
    out.compare.push_back(from_wire(compare));
  }
  for (const auto* branch : {&request.success(), &request.failure()}) {
    auto& ops = branch == &request.success() ? out.success : out.failure;
    ops.reserve(static_cast<size_t>(branch->size()));
    for (const auto& op : *branch) {
      store::RequestOp converted;
      if (!from_wire(op, converted, depth)) {
        return false;
      }
      ops.push_back(std::move(converted));
    }
  }
  return true;
}

void to_wire(const store::TxnRequest& request, pb::TxnRequest& out) {
  for (const auto& compare : request.compare) {
    to_wire(compare, *out.add_compare());
  }
  for (const auto& op : request.success) {
    to_wire(op, *out.add_success());
  }
  for (const auto& op : request.failure) {
    to_wire(op, *out.add_failure());
  }
}

void to_wire(const store::TxnResponse& response, pb::TxnResponse& out) {
  to_wire(response.header, *out.mutable_header());
  out.set_succeeded(response.succeeded);
  for (const auto& op : response.responses) {
    to_wire(op, *out.add_responses());
  }
}

bool from_wire(const pb::TxnResponse& response, store::TxnResponse& out, int depth) {
  if (depth > kMaxTxnDepth) {
    return false;
  }
  out.header.revision = response.header().revision();
  out.succeeded = response.succeeded();
  for (const auto& op : response.responses()) {
    store::ResponseOp converted;
    if (!from_wire(op, converted, depth)) {
      return false;
    }
    out.responses.push_back(std::move(converted));
  }
  return true;
}

// Watch ---------------------------------------------------------------------------------------

store::WatchRequest from_wire(const pb::WatchCreateRequest& request) {
  store::WatchRequest out;
  out.key = request.key();
  out.range_end = request.range_end();
  out.start_revision = request.start_revision();
  out.progress_notify = request.progress_notify();
  for (int filter : request.filters()) {
    if (filter == pb::WatchCreateRequest::NOPUT) {
      out.no_put = true;
    } else if (filter == pb::WatchCreateRequest::NODELETE) {
      out.no_delete = true;
    }
  }
  out.prev_kv = request.prev_kv();
  return out;
}

void to_wire(const store::WatchRequest& request, pb::WatchCreateRequest& out) {
  out.set_key(request.key);
  out.set_range_end(request.range_end);
  out.set_start_revision(request.start_revision);
  out.set_progress_notify(request.progress_notify);
  if (request.no_put) {
    out.add_filters(pb::WatchCreateRequest::NOPUT);
  }
  if (request.no_delete) {
    out.add_filters(pb::WatchCreateRequest::NODELETE);
  }
  out.set_prev_kv(request.prev_kv);
}

}  // namespace etcdwire
