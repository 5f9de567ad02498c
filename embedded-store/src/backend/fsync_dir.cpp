#include "backend/fsync_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace store::backend {

Status fsync_dir(const std::filesystem::path& dir) {
  const std::filesystem::path& where = dir.empty() ? std::filesystem::path(".") : dir;
  int fd = ::open(where.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return Status(Code::Io, "open " + where.string() + ": " + std::strerror(errno));
  }
  Status s = Status::ok();
  if (::fsync(fd) != 0) {
    s = Status(Code::Io, "fsync " + where.string() + ": " + std::strerror(errno));
  }
  ::close(fd);
  return s;
}

}  // namespace store::backend
