// Reading a whole file: its bytes, and errors that name the file and tell a missing one apart.
#include "common/read_file.h"

#include <catch2/catch.hpp>

#include <cerrno>
#include <string>

#include "../temp_dir.h"

using testing_support::overwrite_file;
using testing_support::TempDir;

TEST_CASE("read_file returns every byte of a file", "[read-file]") {
  TempDir dir("ks-read-file");
  const std::string content = std::string("a\0b\n", 4) + std::string(200 * 1024, 'x');
  overwrite_file(dir.path() / "f", content);
  auto text = common::read_file(dir.path() / "f");
  REQUIRE(text);
  CHECK(*text == content);

  overwrite_file(dir.path() / "empty", "");
  auto empty = common::read_file(dir.path() / "empty");
  REQUIRE(empty);
  CHECK(empty->empty());
}

TEST_CASE("read_file names the file and tells a missing one apart", "[read-file]") {
  TempDir dir("ks-read-file");
  SECTION("a missing file") {
    auto text = common::read_file(dir.path() / "nope");
    REQUIRE_FALSE(text);
    CHECK(text.error().missing());
    CHECK(text.error().code == ENOENT);
    CHECK(text.error().message == (dir.path() / "nope").string() + ": No such file or directory");
  }
  SECTION("a directory") {
    auto text = common::read_file(dir.path());
    REQUIRE_FALSE(text);
    CHECK_FALSE(text.error().missing());
    CHECK(text.error().code == EISDIR);
    CHECK(text.error().message == dir.path().string() + ": Is a directory");
  }
}
