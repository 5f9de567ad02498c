// Request and response types of the store. They mirror etcd v3's etcdserverpb/mvccpb messages
// field for field (same names, same meaning), so the etcd gRPC endpoint maps them one to one.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace store {

using Revision = int64_t;
using LeaseId = int64_t;

// mvccpb.KeyValue
struct KeyValue {
  std::string key;
  Revision create_revision = 0;
  Revision mod_revision = 0;
  int64_t version = 0;  // 1 on create, +1 per put; a deleted key has no version
  std::string value;
  LeaseId lease = 0;

  bool operator==(const KeyValue&) const = default;
};

// mvccpb.Event
struct Event {
  enum class Type { Put, Delete };
  Type type = Type::Put;
  KeyValue kv;  // for Delete: key and mod_revision (the deletion revision) only
  std::optional<KeyValue> prev_kv;
};

struct ResponseHeader {
  Revision revision = 0;  // the store revision when the request was served
};

// Range end conventions, as in etcd: empty = the single key; "\0" with key "\0" = all keys;
// "\0" = every key >= key; otherwise the half-open interval [key, range_end).
std::string prefix_range_end(const std::string& prefix);

struct RangeRequest {
  enum class SortOrder { None, Ascend, Descend };
  enum class SortTarget { Key, Version, Create, Mod, Value };
  std::string key;
  std::string range_end;
  int64_t limit = 0;        // 0 = no limit
  Revision revision = 0;    // <= 0 = current
  SortOrder sort_order = SortOrder::None;
  SortTarget sort_target = SortTarget::Key;
  bool serializable = false;  // accepted for API parity; every read here is linearizable
  bool keys_only = false;
  bool count_only = false;
  Revision min_mod_revision = 0;
  Revision max_mod_revision = 0;
  Revision min_create_revision = 0;
  Revision max_create_revision = 0;
};

struct RangeResponse {
  ResponseHeader header;
  std::vector<KeyValue> kvs;
  bool more = false;   // more keys match than were returned (limit)
  int64_t count = 0;   // keys in the range, before limit
};

struct PutRequest {
  std::string key;
  std::string value;
  LeaseId lease = 0;
  bool prev_kv = false;
  bool ignore_value = false;  // keep the current value (the key must exist)
  bool ignore_lease = false;  // keep the current lease (the key must exist)
};

struct PutResponse {
  ResponseHeader header;
  std::optional<KeyValue> prev_kv;
};

struct DeleteRangeRequest {
  std::string key;
  std::string range_end;
  bool prev_kv = false;
};

struct DeleteRangeResponse {
  ResponseHeader header;
  int64_t deleted = 0;
  std::vector<KeyValue> prev_kvs;
};

struct Compare {
  enum class Result { Equal, Greater, Less, NotEqual };
  enum class Target { Version, Create, Mod, Value, Lease };
  Result result = Result::Equal;
  Target target = Target::Version;
  std::string key;
  std::string range_end;  // a compare over a range holds when it holds for every key in it
  int64_t version = 0;
  Revision create_revision = 0;
  Revision mod_revision = 0;
  std::string value;
  LeaseId lease = 0;
};

struct TxnRequest;
struct TxnResponse;

struct RequestOp {
  enum class Kind { Range, Put, DeleteRange, Txn };
  Kind kind = Kind::Range;
  RangeRequest range;
  PutRequest put;
  DeleteRangeRequest delete_range;
  std::shared_ptr<TxnRequest> txn;

  static RequestOp of(RangeRequest r);
  static RequestOp of(PutRequest r);
  static RequestOp of(DeleteRangeRequest r);
  static RequestOp of(TxnRequest r);
};

struct ResponseOp {
  RequestOp::Kind kind = RequestOp::Kind::Range;
  RangeResponse range;
  PutResponse put;
  DeleteRangeResponse delete_range;
  std::shared_ptr<TxnResponse> txn;
};

struct TxnRequest {
  std::vector<Compare> compare;
  std::vector<RequestOp> success;
  std::vector<RequestOp> failure;
};

struct TxnResponse {
  ResponseHeader header;
  bool succeeded = false;
  std::vector<ResponseOp> responses;
};

struct CompactionRequest {
  Revision revision = 0;
  bool physical = false;  // return only once the history is dropped from the database
};

struct CompactionResponse {
  ResponseHeader header;
};

// Leases -------------------------------------------------------------------------------------

struct LeaseGrantRequest {
  int64_t ttl = 0;  // seconds
  LeaseId id = 0;   // 0 = the store picks one
};

struct LeaseGrantResponse {
  ResponseHeader header;
  LeaseId id = 0;
  int64_t ttl = 0;
};

struct LeaseRevokeResponse {
  ResponseHeader header;
};

struct LeaseKeepAliveResponse {
  ResponseHeader header;
  LeaseId id = 0;
  int64_t ttl = 0;
};

struct LeaseTimeToLiveResponse {
  ResponseHeader header;
  LeaseId id = 0;
  int64_t ttl = -1;          // seconds left; -1 when the lease has expired or is unknown
  int64_t granted_ttl = 0;
  std::vector<std::string> keys;  // filled when asked for
};

struct LeaseStatus {
  LeaseId id = 0;
};

struct LeaseLeasesResponse {
  ResponseHeader header;
  std::vector<LeaseStatus> leases;
};

// Maintenance --------------------------------------------------------------------------------

struct StatusResponse {
  ResponseHeader header;
  int64_t db_size = 0;          // bytes of the database file
  int64_t db_size_in_use = 0;   // bytes of pages that hold data (not on the free list)
  Revision compact_revision = 0;
  int64_t key_count = 0;        // live keys at the current revision
};

}  // namespace store
