// The store directory's files (store_dir.h): the advisory LOCK, durable writes, directory fsync.
#include "store_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/durable_file.h"

namespace store {

Status sync_dir(const std::filesystem::path& dir) {
  const std::string error = common::fsync_dir(dir);
  return error.empty() ? Status::ok() : Status(Code::Io, error);
}

Status errno_status(const std::string& what) {
  return Status(Code::Io, what + ": " + std::strerror(errno));
}

Result<int> lock_dir(const std::filesystem::path& dir) {
  auto path = dir / "LOCK";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return errno_status("open " + path.string());
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status(Code::Locked, "the store in " + dir.string() +
                                      " is in use by another process (a running server?)");
    }
    errno = err;
    return errno_status("lock " + path.string());
  }
  return fd;
}

Status write_file_durably(const std::filesystem::path& path,
                          const std::function<Status(int fd)>& write) {
  Status written = Status::ok();
  auto result = common::write_file_durably(path, 0600, [&](int fd) {
    written = write(fd);
    return written.is_ok() ? std::string() : written.message();
  });
  if (!written.is_ok()) {
    return written;
  }
  if (!result.ok()) {
    return Status(Code::Io, result.error.empty() ? result.not_durable : result.error);
  }
  return Status::ok();
}

}  // namespace store
