#include "common/read_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace common {
namespace {

ReadFileError failure(const std::filesystem::path& path, int code) {
  return ReadFileError{code, path.string() + ": " + std::strerror(code)};
}

}  // namespace

Result<std::string, ReadFileError> read_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return failure(path, errno);
  }
  std::string text;
  char buffer[64 * 1024];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      const int code = errno;
      ::close(fd);
      return failure(path, code);
    }
  }
  ::close(fd);
  return text;
}

}  // namespace common
