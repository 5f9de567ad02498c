#include "common/durable_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace common {
namespace {

// Names already taken (a leftover of a crashed process with the same pid) are skipped; past this
// many the directory is not one to write into.
constexpr int kTempAttempts = 100;

int create_temp(const std::filesystem::path& path, unsigned mode, std::filesystem::path& temp) {
  static std::atomic<unsigned long> sequence{0};
  int fd = -1;
  for (int attempt = 0; attempt < kTempAttempts; ++attempt) {
    temp = path;
    temp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(sequence++);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(mode));
    if (fd >= 0 || errno != EEXIST) {
      break;
    }
  }
  return fd;
}

std::string write_all(int fd, std::string_view content) {
  for (std::size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n >= 0) {
      done += static_cast<std::size_t>(n);
    } else if (errno != EINTR) {
      return std::strerror(errno);
    }
  }
  return {};
}

}  // namespace

DurableWrite write_file_durably(const std::filesystem::path& path, unsigned mode,
                                const std::function<std::string(int fd)>& write) {
  DurableWrite out;
  std::filesystem::path temp;
  const int fd = create_temp(path, mode, temp);
  if (fd < 0) {
    out.error = temp.string() + ": " + std::strerror(errno);
    return out;
  }
  int err = ::fchmod(fd, static_cast<mode_t>(mode)) == 0 ? 0 : errno;
  std::string written;
  if (err == 0) {
    written = write(fd);
  }
  if (err == 0 && written.empty() && ::fsync(fd) != 0) {
    err = errno;
  }
  if (::close(fd) != 0 && err == 0) {
    err = errno;
  }
  if (err == 0 && written.empty() && ::rename(temp.c_str(), path.c_str()) != 0) {
    err = errno;
  }
  if (err != 0 || !written.empty()) {
    ::unlink(temp.c_str());
    out.error = !written.empty() ? written : path.string() + ": " + std::strerror(err);
    return out;
  }
  out.not_durable = fsync_dir(path.parent_path());
  return out;
}

DurableWrite write_file_durably(const std::filesystem::path& path, std::string_view content,
                                unsigned mode) {
  return write_file_durably(path, mode, [&](int fd) {
    std::string error = write_all(fd, content);
    return error.empty() ? error : path.string() + ": " + error;
  });
}

std::string fsync_dir(const std::filesystem::path& dir) {
  const std::filesystem::path where = dir.empty() ? std::filesystem::path(".") : dir;
  const int fd = ::open(where.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return where.string() + ": " + std::strerror(errno);
  }
  std::string error;
  if (::fsync(fd) != 0) {
    error = where.string() + ": fsync: " + std::strerror(errno);
  }
  ::close(fd);
  return error;
}

}  // namespace common
