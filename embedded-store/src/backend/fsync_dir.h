// Durability of directory entries: a file created, renamed or removed is only certain to survive
// a power loss once its directory is fsynced too. The store's one helper for it.
#pragma once

#include <filesystem>

#include "store/status.h"

namespace store::backend {

// fsyncs the directory itself; an Io status names it when it cannot be opened or synced.
Status fsync_dir(const std::filesystem::path& dir);

}  // namespace store::backend
