#include "server/fsync_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace apiserver::server {

bool fsync_dir(const std::filesystem::path& dir, std::string& error) {
  const std::filesystem::path& where = dir.empty() ? std::filesystem::path(".") : dir;
  int fd = ::open(where.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    error = where.string() + ": " + std::strerror(errno);
    return false;
  }
  bool ok = ::fsync(fd) == 0;
  if (!ok) {
    error = where.string() + ": fsync: " + std::strerror(errno);
  }
  ::close(fd);
  return ok;
}

}  // namespace apiserver::server
