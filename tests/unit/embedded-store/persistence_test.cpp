// Persistence: data, revision and compaction survive a close and reopen; the data dir lock.
#include "child_process.h"
#include "store_test_support.h"

using store_test::TempDir;

namespace {

const char* durability_name(store::Durability durability) {
  switch (durability) {
    case store::Durability::Sync:
      return "Sync";
    case store::Durability::NoSync:
      return "NoSync";
    case store::Durability::Ephemeral:
      return "Ephemeral";
  }
  return "?";
}

}  // namespace

TEST_CASE("Close and reopen keeps data, revision and compacted revision", "[store][persistence]") {
  const auto durability = GENERATE(store::Durability::Sync, store::Durability::NoSync);
  CAPTURE(durability_name(durability));
  TempDir dir;
  auto options = store_test::test_options(dir.path());
  options.durability = durability;

  store::Revision revision = 0;
  store::Revision compacted = 0;
  std::vector<store::KeyValue> live;
  std::vector<store::KeyValue> history;
  const std::string nul(1, '\0');
  {
    auto store = store_test::open_store(options);
    for (int i = 0; i < 30; ++i) {
      REQUIRE(
          store->put(store_test::put_op("k/" + std::to_string(i % 10), std::to_string(i))).is_ok());
    }
    REQUIRE(store->delete_range(store_test::delete_op("k/3")).is_ok());
    compacted = store->current_revision() - 5;
    REQUIRE(store->compact({compacted, false}).is_ok());
    revision = store->current_revision();
    auto request = store_test::range_op(nul, nul);
    live = store->range(request)->kvs;
    request.revision = compacted + 1;
    history = store->range(request)->kvs;
  }

  auto store = store_test::open_store(options);
  CHECK(store->current_revision() == revision);
  CHECK(store->compacted_revision() == compacted);
  auto status = store->status();
  REQUIRE(status.is_ok());
  CHECK(status->header.revision == revision);
  CHECK(status->compact_revision == compacted);
  CHECK(status->key_count == 9);

  auto request = store_test::range_op(nul, nul);
  CHECK(store->range(request)->kvs == live);
  request.revision = compacted + 1;
  CHECK(store->range(request)->kvs == history);
  request.revision = compacted - 1;
  CHECK(store->range(request).status().code() == store::Code::Compacted);

  auto next = store->put(store_test::put_op("after", "1"));
  REQUIRE(next.is_ok());
  CHECK(next->header.revision == revision + 1);
  CHECK(store->check_integrity().is_ok());
}

TEST_CASE("Ephemeral stores are private and writable", "[store][persistence]") {
  store::Options options;
  options.durability = store::Durability::Ephemeral;
  options.initial_map_size = size_t{64} << 20;
  auto first = store_test::open_store(options);
  auto second = store_test::open_store(options);
  REQUIRE(first->put(store_test::put_op("k", "first")).is_ok());
  auto got = second->range(store_test::range_op("k"));
  REQUIRE(got.is_ok());
  CHECK(got->kvs.empty());
  auto mine = first->range(store_test::range_op("k"));
  REQUIRE(mine.is_ok());
  REQUIRE(mine->kvs.size() == 1);
  CHECK(mine->kvs[0].value == "first");
}

TEST_CASE("A second process cannot open a dir that an open store holds",
          "[store][persistence][lock]") {
  TempDir dir;
  auto store = store_test::open_store(store_test::test_options(dir.path()));
  REQUIRE(store->put(store_test::put_op("k", "v")).is_ok());
  {
    store_test::ChildProcess child({"try-open", dir.path().string()});
    REQUIRE(child.started());
    CHECK(child.wait() == static_cast<int>(store::Code::Locked));
  }
  store.reset();
  {
    store_test::ChildProcess child({"try-open", dir.path().string()});
    REQUIRE(child.started());
    CHECK(child.wait() == static_cast<int>(store::Code::Ok));
  }
  // The child's open and close left the data alone.
  store = store_test::open_store(store_test::test_options(dir.path()));
  auto got = store->range(store_test::range_op("k"));
  REQUIRE(got.is_ok());
  REQUIRE(got->kvs.size() == 1);
  CHECK(got->kvs[0].value == "v");
}
