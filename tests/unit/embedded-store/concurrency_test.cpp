// Concurrency: optimistic increments through txn compares on mod_revision never lose an update.
#include "store_test_support.h"

#include <thread>

using store_test::StoreFixture;

TEST_CASE_METHOD(StoreFixture,
                 "Concurrent compare-and-swap increments count every successful txn once",
                 "[store][concurrency]") {
  constexpr int kThreads = 8;
  constexpr int kIterations = 60;
  put("counter", "0");
  const auto start = rev();

  struct Tally {
    int succeeded = 0;
    int conflicted = 0;
    int errors = 0;
    std::string first_error;
  };
  std::vector<Tally> tallies(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, &tally = tallies[t]] {
      for (int i = 0; i < kIterations; ++i) {
        auto read = store->range(store_test::range_op("counter"));
        if (!read.is_ok() || read->kvs.size() != 1) {
          ++tally.errors;
          tally.first_error = read.status().message();
          continue;
        }
        const auto& kv = read->kvs[0];
        store::TxnRequest request;
        store::Compare compare;
        compare.key = "counter";
        compare.target = store::Compare::Target::Mod;
        compare.result = store::Compare::Result::Equal;
        compare.mod_revision = kv.mod_revision;
        request.compare.push_back(compare);
        request.success.push_back(store::RequestOp::of(
            store_test::put_op("counter", std::to_string(std::stoll(kv.value) + 1))));
        auto result = store->txn(request);
        if (!result.is_ok()) {
          ++tally.errors;
          tally.first_error = result.status().message();
        } else if (result->succeeded) {
          ++tally.succeeded;
        } else {
          ++tally.conflicted;
        }
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }

  int succeeded = 0;
  for (const auto& tally : tallies) {
    CAPTURE(tally.first_error);
    CHECK(tally.errors == 0);
    CHECK(tally.succeeded + tally.conflicted + tally.errors == kIterations);
    succeeded += tally.succeeded;
  }
  CAPTURE(succeeded);
  CHECK(succeeded >= kIterations);  // at least one thread wins each round
  auto counter = get("counter");
  REQUIRE(counter);
  CHECK(counter->value == std::to_string(succeeded));
  CHECK(counter->version == succeeded + 1);
  // Only the successful txns wrote, each in its own revision.
  CHECK(rev() == start + succeeded);
}
