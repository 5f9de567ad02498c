// etcd's KV service over the wire: what etcdctl's get, put, del, txn and compaction send.
#include <catch2/catch.hpp>

#include "endpoint.h"

namespace pb = etcdserverpb;
using testing_support::Endpoint;

TEST_CASE("etcd KV: put, range and delete carry the member's header and the store's revision") {
  Endpoint e;
  REQUIRE(e.put("/registry/a", "1") == 2);  // the store starts at revision 1, as etcd does
  REQUIRE(e.put("/registry/b", "2") == 3);
  REQUIRE(e.put("/other", "3") == 4);

  grpc::ClientContext context;
  pb::RangeRequest range;
  range.set_key("/registry/");
  range.set_range_end("/registry0");  // the prefix's range end, as etcdctl --prefix sends
  pb::RangeResponse got;
  REQUIRE(e.kv->Range(&context, range, &got).ok());
  REQUIRE(got.kvs_size() == 2);
  CHECK(got.kvs(0).key() == "/registry/a");
  CHECK(got.kvs(0).create_revision() == 2);
  CHECK(got.kvs(0).version() == 1);
  CHECK(got.count() == 2);
  CHECK(got.header().revision() == 4);
  CHECK(got.header().member_id() == e.server().member_id());
  CHECK(got.header().cluster_id() == e.server().cluster_id());
  CHECK(got.header().raft_term() == 1);

  grpc::ClientContext del_context;
  pb::DeleteRangeRequest del;
  del.set_key("/registry/a");
  del.set_prev_kv(true);
  pb::DeleteRangeResponse deleted;
  REQUIRE(e.kv->DeleteRange(&del_context, del, &deleted).ok());
  CHECK(deleted.deleted() == 1);
  REQUIRE(deleted.prev_kvs_size() == 1);
  CHECK(deleted.prev_kvs(0).value() == "1");
  CHECK(deleted.header().revision() == 5);
}

TEST_CASE("etcd KV: a txn compares, then runs its success or failure branch") {
  Endpoint e;
  e.put("k", "v1");
  auto txn_on = [&](const std::string& expected) {
    grpc::ClientContext context;
    pb::TxnRequest txn;
    auto* compare = txn.add_compare();
    compare->set_key("k");
    compare->set_target(pb::Compare::VALUE);
    compare->set_result(pb::Compare::EQUAL);
    compare->set_value(expected);
    auto* put = txn.add_success()->mutable_request_put();
    put->set_key("k");
    put->set_value("v2");
    auto* get = txn.add_failure()->mutable_request_range();
    get->set_key("k");
    pb::TxnResponse response;
    auto status = e.kv->Txn(&context, txn, &response);
    REQUIRE(status.ok());
    return response;
  };
  auto failed = txn_on("nope");
  CHECK_FALSE(failed.succeeded());
  REQUIRE(failed.responses_size() == 1);
  REQUIRE(failed.responses(0).has_response_range());
  CHECK(failed.responses(0).response_range().kvs(0).value() == "v1");
  CHECK(failed.responses(0).response_range().header().member_id() == e.server().member_id());

  auto succeeded = txn_on("v1");
  CHECK(succeeded.succeeded());
  REQUIRE(succeeded.responses(0).has_response_put());
  CHECK(succeeded.header().revision() == 3);
}

TEST_CASE("etcd KV: errors carry etcd's gRPC codes and messages") {
  Endpoint e;
  SECTION("an empty key") {
    grpc::ClientContext context;
    pb::PutRequest put;
    pb::PutResponse response;
    auto status = e.kv->Put(&context, put, &response);
    CHECK(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
    CHECK(status.error_message() == "etcdserver: key is not provided");
  }
  SECTION("a compacted revision") {
    e.put("k", "1");
    e.put("k", "2");
    int64_t latest = e.put("k", "3");
    grpc::ClientContext compact_context;
    pb::CompactionRequest compact;
    compact.set_revision(latest);
    pb::CompactionResponse compacted;
    REQUIRE(e.kv->Compact(&compact_context, compact, &compacted).ok());

    grpc::ClientContext context;
    pb::RangeRequest range;
    range.set_key("k");
    range.set_revision(2);
    pb::RangeResponse response;
    auto status = e.kv->Range(&context, range, &response);
    CHECK(status.error_code() == grpc::StatusCode::OUT_OF_RANGE);
    CHECK(status.error_message() == "etcdserver: mvcc: required revision has been compacted");
  }
  SECTION("a future revision") {
    grpc::ClientContext context;
    pb::RangeRequest range;
    range.set_key("k");
    range.set_revision(99);
    pb::RangeResponse response;
    auto status = e.kv->Range(&context, range, &response);
    CHECK(status.error_code() == grpc::StatusCode::OUT_OF_RANGE);
    CHECK(status.error_message() == "etcdserver: mvcc: required revision is a future revision");
  }
  SECTION("a txn that writes one key twice changes nothing") {
    grpc::ClientContext context;
    pb::TxnRequest txn;
    for (int i = 0; i < 2; ++i) {
      auto* put = txn.add_success()->mutable_request_put();
      put->set_key("twice");
      put->set_value("x");
    }
    pb::TxnResponse response;
    auto status = e.kv->Txn(&context, txn, &response);
    CHECK(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
    CHECK(status.error_message() == "etcdserver: duplicate key given in txn request");
    CHECK(e.store().current_revision() == 1);
  }
  SECTION("a txn operation with nothing in it") {
    grpc::ClientContext context;
    pb::TxnRequest txn;
    txn.add_success();
    pb::TxnResponse response;
    auto status = e.kv->Txn(&context, txn, &response);
    CHECK(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
    CHECK(status.error_message() == "etcdserver: key not found");
  }
}
