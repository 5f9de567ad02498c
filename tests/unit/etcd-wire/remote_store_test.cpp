// etcdwire::connect: the store::Store over an etcd endpoint behaves as the store it reaches,
// errors included; what etcd's API cannot do is refused plainly.
#include <catch2/catch.hpp>

#include "../temp_dir.h"
#include "endpoint.h"
#include "etcdwire/client.h"

using testing_support::Endpoint;

namespace {

std::unique_ptr<store::Store> remote_of(Endpoint& e) {
  etcdwire::ClientOptions options;
  options.endpoint = e.server().url();
  auto connected = etcdwire::connect(options);
  INFO(connected.status().message());
  REQUIRE(connected.is_ok());
  return std::move(connected).value();
}

}  // namespace

TEST_CASE("remote store: KV calls, a txn and their errors come back as the store's") {
  Endpoint e;
  auto remote = remote_of(e);
  store::PutRequest put;
  put.key = "a";
  put.value = "1";
  REQUIRE(remote->put(put)->header.revision == 2);
  put.value = "2";
  put.prev_kv = true;
  auto second = remote->put(put);
  REQUIRE(second.is_ok());
  REQUIRE(second->prev_kv);
  CHECK(second->prev_kv->value == "1");

  store::RangeRequest get;
  get.key = "a";
  auto got = remote->range(get);
  REQUIRE(got.is_ok());
  REQUIRE(got->kvs.size() == 1);
  CHECK(got->kvs[0].version == 2);
  CHECK(got->kvs[0].create_revision == 2);

  store::TxnRequest txn;
  store::Compare compare;
  compare.key = "a";
  compare.target = store::Compare::Target::Mod;
  compare.mod_revision = 3;
  txn.compare.push_back(compare);
  store::PutRequest then;
  then.key = "b";
  then.value = "x";
  txn.success.push_back(store::RequestOp::of(then));
  auto done = remote->txn(txn);
  REQUIRE(done.is_ok());
  CHECK(done->succeeded);
  REQUIRE(done->responses.size() == 1);
  CHECK(done->responses[0].kind == store::RequestOp::Kind::Put);

  store::CompactionRequest compact;
  compact.revision = 4;
  REQUIRE(remote->compact(compact).is_ok());
  CHECK(remote->compacted_revision() == 4);
  get.revision = 2;
  auto old = remote->range(get);
  CHECK(old.status().code() == store::Code::Compacted);
  CHECK(old.status().message() == "etcdserver: mvcc: required revision has been compacted");

  store::DeleteRangeRequest del;
  del.key = "a";
  CHECK(remote->delete_range(del)->deleted == 1);
  CHECK(remote->current_revision() == e.store().current_revision());
}

TEST_CASE("remote store: a watch delivers created, the events, and ends when canceled") {
  Endpoint e;
  auto remote = remote_of(e);
  store::WatchRequest request;
  request.key = "k/";
  request.range_end = store::prefix_range_end("k/");
  request.prev_kv = true;
  auto watcher = remote->watch(request);
  store::WatchResponse response;
  REQUIRE(watcher->next(response, std::chrono::seconds(10)));
  CHECK(response.created);
  e.put("k/1", "one");
  e.put("k/1", "two");
  std::vector<store::Event> events;
  while (events.size() < 2 && watcher->next(response, std::chrono::seconds(10))) {
    events.insert(events.end(), response.events.begin(), response.events.end());
  }
  REQUIRE(events.size() == 2);
  CHECK(events[1].kv.value == "two");
  REQUIRE(events[1].prev_kv);
  CHECK(events[1].prev_kv->value == "one");
  watcher->cancel();
  bool canceled = false;
  while (!canceled && watcher->next(response, std::chrono::seconds(10))) {
    canceled = response.canceled;
  }
  CHECK(canceled);
}

TEST_CASE("remote store: leases, status and a snapshot the store can read") {
  Endpoint e;
  auto remote = remote_of(e);
  store::LeaseGrantRequest grant;
  grant.ttl = 30;
  auto granted = remote->lease_grant(grant);
  REQUIRE(granted.is_ok());
  CHECK(remote->lease_keep_alive(granted->id)->ttl == 30);
  CHECK(remote->lease_keep_alive(granted->id + 1).status().code() == store::Code::LeaseNotFound);
  CHECK(remote->lease_time_to_live(granted->id, false)->granted_ttl == 30);
  CHECK(remote->lease_leases()->leases.size() == 1);
  REQUIRE(remote->lease_revoke(granted->id).is_ok());
  CHECK(remote->lease_revoke(granted->id).status().code() == store::Code::LeaseNotFound);

  e.put("x", "1");
  auto status = remote->status();
  REQUIRE(status.is_ok());
  CHECK(status->key_count == 1);
  CHECK(status->db_size > 0);
  CHECK(status->compact_revision == 0);
  CHECK(status->header.revision == e.store().current_revision());

  testing_support::TempDir dir;
  auto file = dir.path() / "remote.snap";
  REQUIRE(remote->snapshot(file).is_ok());
  auto contents = store::read_snapshot(file);
  REQUIRE(contents.is_ok());
  CHECK(contents->revision == e.store().current_revision());
  REQUIRE(contents->kvs.size() == 1);
  CHECK(contents->kvs[0].key == "x");

  CHECK(remote->replace_all({}).status().code() == store::Code::InvalidArgument);
  CHECK(remote->check_integrity().code() == store::Code::InvalidArgument);
}

TEST_CASE("remote store: an endpoint that does not answer fails within the dial timeout") {
  etcdwire::ClientOptions options;
  options.endpoint = "http://127.0.0.1:1";
  options.dial_timeout = std::chrono::milliseconds(300);
  auto connected = etcdwire::connect(options);
  CHECK(connected.status().code() == store::Code::Io);
  options.endpoint = "127.0.0.1:2379";
  CHECK(etcdwire::connect(options).status().code() == store::Code::InvalidArgument);
}
