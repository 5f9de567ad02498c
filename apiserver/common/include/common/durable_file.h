// Replacing a file so that a reader, even after a crash or a power loss, finds either the old file
// or the whole new one: a temporary file in the same directory, write, fsync, rename over the
// target, then fsync of the directory so that the rename itself is on disk.
//
// The temporary file is `<path>.tmp.<pid>.<n>`, created exclusively (O_EXCL), so concurrent
// writers in this or other processes never share one; it is removed on every failure. Callers that
// list a directory must skip such names. Nothing here throws; every function may be called from
// any thread.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace common {

struct DurableWrite {
  // Empty when the new file is in place. Otherwise one line naming the file and the cause
  // ("<temp>: <strerror>" when the temporary file cannot be created, "<path>: <strerror>" when a
  // later step fails, or the text the writer returned); the old file is then untouched.
  std::string error;
  // Set (as by fsync_dir) when the file is in place but its directory could not be fsynced:
  // every reader sees the whole new file, only a power loss could still undo the rename.
  std::string not_durable;
  bool ok() const { return error.empty() && not_durable.empty(); }
};

// Writes `content` to `path` with permission bits `mode` (set with fchmod: the umask has no say).
DurableWrite write_file_durably(const std::filesystem::path& path, std::string_view content,
                                unsigned mode);

// The same with the content written by `write` to the open temporary file's descriptor (for data
// that a library writes to a descriptor). `write` returns an empty string on success or the
// error text to return; it must not close the descriptor.
DurableWrite write_file_durably(const std::filesystem::path& path, unsigned mode,
                                const std::function<std::string(int fd)>& write);

// fsyncs the directory `dir` itself ("." when empty), so that the files created, renamed or
// removed in it survive a power loss. Empty on success, else "<dir>: <strerror>" (open failed) or
// "<dir>: fsync: <strerror>".
std::string fsync_dir(const std::filesystem::path& dir);

}  // namespace common
