// Maintenance: status, snapshot while writing, restore into a new dir, defragment, integrity.
#include "store_test_support.h"

#include <atomic>
#include <thread>

using store_test::StoreFixture;
using store_test::TempDir;

TEST_CASE_METHOD(StoreFixture, "Status reports revision, compaction, keys and file sizes",
                 "[store][maintenance]") {
  for (int i = 0; i < 20; ++i) {
    put("k/" + std::to_string(i % 5), std::string(100, 'x'));
  }
  del("k/4");
  REQUIRE(store->compact({rev() - 3, false}).is_ok());

  auto status = store->status();
  REQUIRE(status.is_ok());
  CHECK(status->header.revision == rev());
  CHECK(status->compact_revision == rev() - 3);
  CHECK(status->key_count == 4);
  CHECK(status->db_size > 0);
  CHECK(status->db_size_in_use > 0);
  CHECK(status->db_size_in_use <= status->db_size);
}

TEST_CASE_METHOD(StoreFixture, "A snapshot taken while writing restores to a consistent store",
                 "[store][maintenance]") {
  for (int i = 0; i < 50; ++i) {
    put("base/" + std::to_string(i), "v" + std::to_string(i));
  }
  REQUIRE(store->compact({rev() - 10, true}).is_ok());
  const auto compacted = store->compacted_revision();
  const auto before = rev();

  // A writer keeps going for as long as the snapshot runs.
  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  std::atomic<bool> failed{false};
  std::thread writer([&] {
    for (int i = 0; !stop.load(); ++i) {
      if (!store->put(store_test::put_op("live/" + std::to_string(i % 40), std::to_string(i)))
               .is_ok()) {
        failed = true;
      }
      ++writes;
    }
  });
  TempDir snapshot_dir;
  const auto file = snapshot_dir.path() / "snapshot.db";
  auto taken = store->snapshot(file);
  stop = true;
  writer.join();
  REQUIRE(taken.is_ok());
  REQUIRE_FALSE(failed);
  const auto after = rev();
  REQUIRE(std::filesystem::exists(file));
  CHECK(std::filesystem::file_size(file) > 0);

  TempDir restored_dir;
  auto restored_status = store::restore_snapshot(file, restored_dir.path());
  INFO("restore_snapshot: " << Catch::Detail::stringify(restored_status));
  REQUIRE(restored_status.is_ok());
  auto restored = store_test::open_store(store_test::test_options(restored_dir.path(), clock));

  const auto at = restored->current_revision();
  CHECK(at >= before);
  CHECK(at <= after);
  CHECK(restored->compacted_revision() == compacted);

  // The restored store equals the original as of the snapshot's revision.
  store::RangeRequest everything = store_test::range_op(std::string(1, '\0'), std::string(1, '\0'));
  everything.revision = at;
  auto original = store->range(everything);
  everything.revision = 0;
  auto copy = restored->range(everything);
  REQUIRE(original.is_ok());
  REQUIRE(copy.is_ok());
  CHECK(copy->kvs == original->kvs);
  CHECK(copy->header.revision == at);
  CHECK(restored->check_integrity().is_ok());

  // It takes writes from there on.
  auto next = restored->put(store_test::put_op("after-restore", "1"));
  REQUIRE(next.is_ok());
  CHECK(next->header.revision == at + 1);
  CHECK(store->check_integrity().is_ok());
}

TEST_CASE_METHOD(StoreFixture, "Defragment keeps every key and does not grow the file",
                 "[store][maintenance]") {
  auto lease = grant(600);
  for (int round = 0; round < 10; ++round) {
    store::TxnRequest request;
    for (int i = 0; i < 100; ++i) {
      request.success.push_back(store::RequestOp::of(
          store_test::put_op("d/" + std::to_string(i), std::string(512, 'a' + round))));
    }
    txn(request);
  }
  put("leased", "v", lease);
  del("d/50", "d/60");
  REQUIRE(store->compact({rev() - 2, true}).is_ok());

  const auto kvs_before = all();
  const auto history_before = all(rev() - 1);
  auto status_before = store->status();
  REQUIRE(status_before.is_ok());

  auto defragmented = store->defragment();
  INFO("defragment: " << Catch::Detail::stringify(defragmented));
  REQUIRE(defragmented.is_ok());

  auto status_after = store->status();
  REQUIRE(status_after.is_ok());
  CHECK(status_after->db_size <= status_before->db_size);
  CHECK(status_after->db_size_in_use <= status_after->db_size);
  CHECK(status_after->header.revision == status_before->header.revision);
  CHECK(status_after->compact_revision == status_before->compact_revision);
  CHECK(status_after->key_count == status_before->key_count);
  CHECK(all() == kvs_before);
  CHECK(all(rev() - 1) == history_before);
  auto ttl = store->lease_time_to_live(lease, true);
  REQUIRE(ttl.is_ok());
  CHECK(ttl->keys == std::vector<std::string>{"leased"});
  CHECK(store->check_integrity().is_ok());

  // Still writable, and the data survives a reopen after the defragment.
  put("after", "1");
  reopen();
  CHECK(all().size() == kvs_before.size() + 1);
  CHECK(store->check_integrity().is_ok());
}

TEST_CASE_METHOD(StoreFixture, "check_integrity holds after every kind of write",
                 "[store][maintenance]") {
  auto lease = grant(5);
  put("a", "1", lease);
  put("b", "1");
  store::TxnRequest request;
  request.success = {store::RequestOp::of(store_test::put_op("c", "1")),
                     store::RequestOp::of(store_test::delete_op("b"))};
  txn(request);
  put("d", "1", lease);
  clock->advance(std::chrono::seconds(6));
  store->expire_leases_for_test();
  REQUIRE(store->compact({rev() - 1, true}).is_ok());
  REQUIRE(store->defragment().is_ok());
  auto integrity = store->check_integrity();
  INFO(Catch::Detail::stringify(integrity));
  CHECK(integrity.is_ok());
  CHECK(store_test::keys_of(all()) == std::vector<std::string>{"c"});
}

TEST_CASE_METHOD(StoreFixture, "Restoring a snapshot replaces the database of an existing dir",
                 "[store][maintenance]") {
  put("from-snapshot", "1");
  put("from-snapshot", "2");
  const auto at = rev();
  TempDir snapshot_dir;
  const auto file = snapshot_dir.path() / "snapshot.db";
  REQUIRE(store->snapshot(file).is_ok());

  TempDir target;
  {
    auto other = store_test::open_store(store_test::test_options(target.path(), clock));
    for (int i = 0; i < 10; ++i) {
      REQUIRE(other->put(store_test::put_op("old/" + std::to_string(i), "x")).is_ok());
    }
  }
  auto restored_status = store::restore_snapshot(file, target.path());
  INFO("restore_snapshot: " << Catch::Detail::stringify(restored_status));
  REQUIRE(restored_status.is_ok());
  auto restored = store_test::open_store(store_test::test_options(target.path(), clock));
  CHECK(restored->current_revision() == at);
  auto kvs = restored->range(store_test::range_op(std::string(1, '\0'), std::string(1, '\0')));
  REQUIRE(kvs.is_ok());
  CHECK(kvs->kvs == all());
  CHECK(restored->check_integrity().is_ok());
}
