// The writes answered through a callback (put_async, delete_range_async, txn_async): the callback
// gets what the blocking call would return, once, after the write is visible; a callback that
// throws does not end the commit loop.
#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

#include "store_test_support.h"

using store::Code;
using store_test::StoreFixture;

namespace {

// Starts `call` with a callback that hands its result to the returned future.
template <typename Response, typename Call>
std::future<store::Result<Response>> start(Call call) {
  auto promise = std::make_shared<std::promise<store::Result<Response>>>();
  auto answer = promise->get_future();
  call([promise](store::Result<Response> result) { promise->set_value(std::move(result)); });
  return answer;
}

template <typename T>
T await(std::future<T>& answer) {
  REQUIRE(answer.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  return answer.get();
}

store::PutRequest put_request(const std::string& key, const std::string& value) {
  store::PutRequest request;
  request.key = key;
  request.value = value;
  request.prev_kv = true;
  return request;
}

}  // namespace

TEST_CASE_METHOD(StoreFixture, "put_async answers like put, once the write is visible",
                 "[store][async]") {
  put("/k", "one");
  auto answer = start<store::PutResponse>(
      [&](auto done) { store->put_async(put_request("/k", "two"), std::move(done)); });
  auto result = await(answer);
  REQUIRE(result.is_ok());
  CHECK(result->header.revision == 3);
  REQUIRE(result->prev_kv);
  CHECK(result->prev_kv->value == "one");
  // Answered after the commit: a read sees the value.
  store::RangeRequest read;
  read.key = "/k";
  CHECK(range(read).kvs.at(0).value == "two");
}

TEST_CASE_METHOD(StoreFixture, "put_async reports the store's refusal through the callback",
                 "[store][async]") {
  auto request = put_request("/k", "");
  request.ignore_value = true;  // on a missing key: etcdserver's "key not found"
  auto answer =
      start<store::PutResponse>([&](auto done) { store->put_async(request, std::move(done)); });
  auto result = await(answer);
  CHECK(result.status().code() == Code::KeyNotFound);
  CHECK(rev() == 1);
}

TEST_CASE_METHOD(StoreFixture, "delete_range_async and txn_async answer like their blocking calls",
                 "[store][async]") {
  put("/a/1", "x");
  put("/a/2", "y");
  store::DeleteRangeRequest del;
  del.key = "/a/";
  del.range_end = "/a0";
  auto deleted = start<store::DeleteRangeResponse>(
      [&](auto done) { store->delete_range_async(del, std::move(done)); });
  auto result = await(deleted);
  REQUIRE(result.is_ok());
  CHECK(result->deleted == 2);
  CHECK(result->header.revision == 4);

  store::TxnRequest txn;
  store::Compare missing;
  missing.key = "/a/1";
  missing.target = store::Compare::Target::Version;
  missing.result = store::Compare::Result::Equal;
  missing.version = 0;
  txn.compare.push_back(missing);
  txn.success.push_back(store::RequestOp::of(put_request("/a/1", "back")));
  auto answered =
      start<store::TxnResponse>([&](auto done) { store->txn_async(txn, std::move(done)); });
  auto txn_result = await(answered);
  REQUIRE(txn_result.is_ok());
  CHECK(txn_result->succeeded);
  CHECK(txn_result->header.revision == 5);

  // A txn the store refuses before queueing it (two puts of one key) answers through the
  // callback too.
  store::TxnRequest duplicate;
  duplicate.success.push_back(store::RequestOp::of(put_request("/d", "1")));
  duplicate.success.push_back(store::RequestOp::of(put_request("/d", "2")));
  auto refused =
      start<store::TxnResponse>([&](auto done) { store->txn_async(duplicate, std::move(done)); });
  CHECK(await(refused).status().code() == Code::DuplicateKey);
  CHECK(rev() == 5);
}

TEST_CASE_METHOD(StoreFixture, "many writes in flight at once are each answered once",
                 "[store][async]") {
  constexpr int kWrites = 500;
  std::atomic<int> answered{0};
  std::atomic<int> failed{0};
  auto all = std::make_shared<std::promise<void>>();  // the last callback may outlive the wait
  auto done = all->get_future();
  for (int i = 0; i < kWrites; ++i) {
    store->put_async(put_request("/many/" + std::to_string(i), "v"),
                     [&answered, &failed, all](store::Result<store::PutResponse> result) {
                       if (!result.is_ok()) {
                         ++failed;
                       }
                       if (++answered == kWrites) {
                         all->set_value();
                       }
                     });
  }
  REQUIRE(done.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(failed == 0);
  CHECK(rev() == 1 + kWrites);
}

TEST_CASE_METHOD(StoreFixture, "a write's callback that throws does not end the commit loop",
                 "[store][async][barrier]") {
  auto thrown = start<store::PutResponse>([&](auto done) {
    store->put_async(put_request("/t", "1"), [done](store::Result<store::PutResponse> result) {
      done(std::move(result));
      throw std::runtime_error("callback bug");
    });
  });
  CHECK(await(thrown).is_ok());
  put("/t", "2");  // the commit loop still runs
  CHECK(rev() == 3);
}
