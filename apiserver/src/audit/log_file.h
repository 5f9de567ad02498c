// The audit log file of --audit-log-path, rotated as kube-apiserver's (lumberjack): once a write
// would take the file past --audit-log-maxsize megabytes (0: lumberjack's 100), the file is
// renamed to <name>-<UTC time, 2006-01-02T15-04-05.000><ext> in the same folder and a new one
// started; then backups beyond --audit-log-maxbackup (0: all kept) and older than
// --audit-log-maxage days (0: any age) are removed. "-" writes to standard output, unrotated.
//
// Not thread-safe: one writer thread owns it (log_writer.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

namespace apiserver::audit {

struct RotationOptions {
  int max_size_mb = 0;
  int max_backups = 0;
  int max_age_days = 0;
};

class LogFile {
 public:
  // The file is opened by open(); `now` stamps backups (the real clock when null).
  LogFile(std::string path, RotationOptions rotation,
          std::chrono::system_clock::time_point (*now)() = nullptr);
  ~LogFile();
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;

  // Creates the folder (0700) and the file (0600) when missing and opens it to append, as
  // kube-apiserver does at start; the error says why it cannot.
  std::optional<std::string> open();
  // Appends `text` (whole lines), rotating first when it would not fit; the error when the
  // write failed.
  std::optional<std::string> write(const std::string& text);

  // The name of the backup made at `t`, e.g. audit-2024-05-01T10-00-00.000.log.
  static std::filesystem::path backup_name(const std::filesystem::path& path,
                                           std::chrono::system_clock::time_point t);

 private:
  std::optional<std::string> rotate();
  void remove_old_backups();

  const std::string path_;
  const RotationOptions rotation_;
  std::chrono::system_clock::time_point (*now_)();
  std::FILE* file_ = nullptr;
  std::uint64_t size_ = 0;
};

}  // namespace apiserver::audit
