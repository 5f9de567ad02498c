// Durable file replacement: content and mode, no temporary file left behind, the old file kept
// on failure, and the error texts.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "common/durable_file.h"

namespace fs = std::filesystem;

namespace {

// A directory of its own for each test, under the system's temporary one; gone afterwards.
class Scratch {
 public:
  Scratch()
      : path_(fs::temp_directory_path() /
              ("ks-durable-" + std::to_string(::getpid()) + "-" + std::to_string(next_++))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~Scratch() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, ec);
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  static inline int next_ = 0;
  fs::path path_;
};

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

unsigned mode_of(const fs::path& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return st.st_mode & 07777;
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(
      std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

}  // namespace

TEST_CASE("a file is written whole with the mode asked for", "[durable_file]") {
  Scratch dir;
  const fs::path file = dir.path() / "config";
  const mode_t old_umask = ::umask(077);
  auto written = common::write_file_durably(file, "first", 0644);
  ::umask(old_umask);
  CHECK(written.ok());
  CHECK(written.error.empty());
  CHECK(read(file) == "first");
  CHECK(mode_of(file) == 0644);

  written = common::write_file_durably(file, std::string(100000, 'x'), 0600);
  CHECK(written.ok());
  CHECK(read(file) == std::string(100000, 'x'));
  CHECK(mode_of(file) == 0600);
  CHECK(entries(dir.path()) == 1);
}

TEST_CASE("a writer callback fills the file through its descriptor", "[durable_file]") {
  Scratch dir;
  const fs::path file = dir.path() / "copy";
  auto written = common::write_file_durably(file, 0600, [](int fd) {
    return ::write(fd, "abc", 3) == 3 ? std::string() : std::string("short write");
  });
  CHECK(written.ok());
  CHECK(read(file) == "abc");
}

TEST_CASE("a failed write keeps the old file and leaves nothing behind", "[durable_file]") {
  Scratch dir;
  const fs::path file = dir.path() / "copy";
  REQUIRE(common::write_file_durably(file, "old", 0600).ok());
  auto written =
      common::write_file_durably(file, 0600, [](int) { return std::string("disk on fire"); });
  CHECK(written.error == "disk on fire");
  CHECK(read(file) == "old");
  CHECK(entries(dir.path()) == 1);
}

TEST_CASE("a directory that cannot be written names the temporary file", "[durable_file]") {
  if (::geteuid() == 0) {
    SUCCEED("root writes anywhere");
    return;
  }
  Scratch dir;
  fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
  auto written = common::write_file_durably(dir.path() / "file", "x", 0600);
  CHECK(written.error.rfind((dir.path() / "file").string() + ".tmp.", 0) == 0);
  CHECK(written.error.find(": Permission denied") != std::string::npos);
}

TEST_CASE("a missing directory is an error naming the temporary file", "[durable_file]") {
  Scratch dir;
  const fs::path file = dir.path() / "missing" / "file";
  auto written = common::write_file_durably(file, "x", 0600);
  const std::string prefix = file.string() + ".tmp." + std::to_string(::getpid()) + ".";
  CHECK(written.error.rfind(prefix, 0) == 0);
  CHECK(written.error.substr(written.error.size() - 27) == ": No such file or directory");
}

TEST_CASE("fsync_dir names the directory it cannot open", "[durable_file]") {
  Scratch dir;
  CHECK(common::fsync_dir(dir.path()).empty());
  CHECK(common::fsync_dir("").empty());
  CHECK(common::fsync_dir(dir.path() / "none") ==
        (dir.path() / "none").string() + ": No such file or directory");
}
