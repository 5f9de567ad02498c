// Durability of directory entries for the API server's own files (PKI, snapshots): a file
// created, renamed or removed is only certain to survive a power loss once its directory is
// fsynced as well.
#pragma once

#include <filesystem>
#include <string>

namespace apiserver::server {

// fsyncs `dir` itself; false with `error` naming the directory and the cause.
bool fsync_dir(const std::filesystem::path& dir, std::string& error);

}  // namespace apiserver::server
