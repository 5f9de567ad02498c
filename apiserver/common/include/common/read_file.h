// Reading a whole file into memory, with an error that names the file and the cause and that
// tells a file that does not exist apart from one that cannot be read (callers create the missing
// ones). Nothing here throws; callable from any thread.
#pragma once

#include <cerrno>
#include <filesystem>
#include <string>

#include "common/result.h"

namespace common {

struct ReadFileError {
  int code = 0;         // the errno of the open or read that failed
  std::string message;  // "<path>: <strerror>"
  bool missing() const { return code == ENOENT; }
};

// The bytes of the file at `path` (possibly none). A directory is an error (EISDIR).
Result<std::string, ReadFileError> read_file(const std::filesystem::path& path);

}  // namespace common
