#include <catch2/catch.hpp>
#include <thread>

#include "store_test_support.h"

using namespace store_test;

TEST_CASE("The map grows on demand instead of failing with map full", "[store][maintenance]") {
  TempDir dir;
  auto options = test_options(dir.path());
  options.initial_map_size = size_t{256} << 10;  // far below what the writes need
  auto store = open_store(options);

  // Concurrent writers, so that growth happens in the middle of group commits.
  const std::string value(64 * 1024, 'v');
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 16; ++i) {
        store::PutRequest put;
        put.key = "/grow/" + std::to_string(t) + "/" + std::to_string(i);
        put.value = value;
        if (!store->put(put).is_ok()) {
          ++failures;
        }
      }
    });
  }
  for (auto& w : writers) {
    w.join();
  }
  CHECK(failures == 0);
  CHECK(store->status()->db_size > int64_t{4} << 20);

  store.reset();
  store = open_store(options);  // reopens a file larger than the initial map
  store::RangeRequest all;
  all.key = "/grow/";
  all.range_end = store::prefix_range_end(all.key);
  all.count_only = true;
  CHECK(store->range(all)->count == 64);
  CHECK(store->check_integrity().is_ok());
}
