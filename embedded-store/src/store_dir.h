// The store directory's files: the LOCK that keeps a second process out, and writes that are
// durable (fsynced with their directory) when they return. Used by open, snapshot, defragment
// and restore.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "store/status.h"

namespace store {

// The directory's entries (a rename, a removal) survive a power loss once this returns ok.
Status sync_dir(const std::filesystem::path& dir);

// `what` followed by errno's text, as an Io status.
Status errno_status(const std::string& what);

// Takes an exclusive advisory lock on dir/LOCK; returns the descriptor holding it.
Result<int> lock_dir(const std::filesystem::path& dir);

// The whole file or none at `path`, and on disk (fsynced with its directory) when this returns.
Status write_file_durably(const std::filesystem::path& path,
                          const std::function<Status(int fd)>& write);

}  // namespace store
