// Crash safety: a writer process (store_helper write, Durability::Sync) is killed with SIGKILL at
// a random moment; every write it acknowledged must be there after a reopen, and the database must
// pass check_integrity.
#include "child_process.h"
#include "store_test_support.h"

#include <random>
#include <set>

using store_test::TempDir;

namespace {

struct CrashRun {
  std::set<std::string> acknowledged;
  int rounds = 0;
};

// One round: start the writer on `dir`, read a random number of acknowledged keys, kill it, then
// reopen the store in this process and check everything acknowledged so far.
void crash_round(const std::filesystem::path& dir, CrashRun& run, std::mt19937& random) {
  const int round = run.rounds++;
  CAPTURE(round);
  const int threads = std::uniform_int_distribution<int>(1, 4)(random);
  const int kill_after = std::uniform_int_distribution<int>(1, 80)(random);
  CAPTURE(threads, kill_after);
  {
    store_test::ChildProcess writer(
        {"write", dir.string(), "r" + std::to_string(round), std::to_string(threads)});
    REQUIRE(writer.started());
    auto ready = writer.read_line(store_test::kWait);
    REQUIRE(ready == std::optional<std::string>("ready"));
    for (int i = 0; i < kill_after; ++i) {
      auto key = writer.read_line(store_test::kWait);
      REQUIRE(key);
      run.acknowledged.insert(*key);
    }
    writer.kill(SIGKILL);
    CHECK(writer.wait() == 128 + SIGKILL);
    // Lines already in the pipe were acknowledged before the kill.
    while (auto key = writer.read_line(store_test::kWait)) {
      run.acknowledged.insert(*key);
    }
  }

  auto options = store_test::test_options(dir);
  options.durability = store::Durability::Sync;
  auto store = store_test::open_store(options);
  auto integrity = store->check_integrity();
  INFO("check_integrity: " << Catch::Detail::stringify(integrity));
  REQUIRE(integrity.is_ok());
  size_t missing = 0;
  std::string first_missing;
  for (const auto& key : run.acknowledged) {
    auto got = store->range(store_test::range_op(key));
    if (!got.is_ok() || got->kvs.size() != 1 || got->kvs[0].value != key) {
      if (missing++ == 0) {
        first_missing = key;
      }
    }
  }
  CAPTURE(run.acknowledged.size(), first_missing);
  CHECK(missing == 0);
  auto status = store->status();
  REQUIRE(status.is_ok());
  CHECK(status->key_count >= static_cast<int64_t>(run.acknowledged.size()));
}

void crash_rounds(int rounds) {
  const auto seed = std::random_device{}();
  CAPTURE(seed);
  std::mt19937 random(seed);
  TempDir dir;
  CrashRun run;
  for (int i = 0; i < rounds; ++i) {
    crash_round(dir.path(), run, random);
  }
}

}  // namespace

TEST_CASE("Acknowledged writes survive a SIGKILL of the writing process", "[store][crash]") {
  crash_rounds(3);
}

TEST_CASE("Acknowledged writes survive many SIGKILLs of the writing process",
          "[.][stress][store][crash]") {
  crash_rounds(60);
}
