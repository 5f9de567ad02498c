// The store's files hold every Secret: a new store is owner-only (directory 0700, files 0600),
// and so are its snapshots and defragmented database.
#include <sys/stat.h>

#include "store_test_support.h"

namespace {

unsigned mode_of(const std::filesystem::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777u;
}

}  // namespace

TEST_CASE("a new store, its snapshots and its defragmented file are owner-only",
          "[backend][permissions]") {
  store_test::TempDir temp;
  const auto dir = temp.path() / "store";
  store::Options options;
  options.dir = dir;
  options.durability = store::Durability::NoSync;
  // Whatever the umask would allow.
  const mode_t previous = ::umask(0);
  auto opened = store::Store::open(options);
  ::umask(previous);
  REQUIRE(opened.is_ok());
  auto db = std::move(opened).value();
  CHECK(mode_of(dir) == 0700u);
  CHECK(mode_of(dir / "data.mdb") == 0600u);
  CHECK(mode_of(dir / "lock.mdb") == 0600u);

  const auto snapshot = temp.path() / "snap.db";
  REQUIRE(db->snapshot(snapshot).is_ok());
  CHECK(mode_of(snapshot) == 0600u);
  REQUIRE(db->defragment().is_ok());
  CHECK(mode_of(dir / "data.mdb") == 0600u);
}
