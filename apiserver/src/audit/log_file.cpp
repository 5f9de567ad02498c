#include "audit/log_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "common/rfc3339.h"

namespace apiserver::audit {
namespace {

constexpr std::uint64_t kMegabyte = 1024 * 1024;
constexpr int kDefaultMaxSizeMb = 100;  // lumberjack's when MaxSize is 0
// lumberjack's backup time layout, "2006-01-02T15-04-05.000": 23 characters.
constexpr size_t kStampLength = 23;

std::string stamp(std::chrono::system_clock::time_point t) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  auto text = common::format_rfc3339_micro(micros / 1000000, static_cast<int>(micros % 1000000));
  if (!text) {
    return "0000-01-01T00-00-00.000";
  }
  // "2006-01-02T15:04:05.000000Z" -> "2006-01-02T15-04-05.000"
  std::string out = text->substr(0, kStampLength);
  std::replace(out.begin(), out.end(), ':', '-');
  return out;
}

// The time a backup's stamp names, or nullopt when it is not a stamp.
std::optional<std::int64_t> stamp_seconds(std::string text) {
  if (text.size() != kStampLength || text[13] != '-' || text[16] != '-') {
    return std::nullopt;
  }
  text[13] = ':';
  text[16] = ':';
  auto parsed = common::parse_rfc3339(text + "Z");
  if (!parsed) {
    return std::nullopt;
  }
  return parsed->seconds;
}

std::chrono::system_clock::time_point real_now() {
  return std::chrono::system_clock::now();
}

}  // namespace

LogFile::LogFile(std::string path, RotationOptions rotation,
                 std::chrono::system_clock::time_point (*now)())
    : path_(std::move(path)), rotation_(rotation), now_(now != nullptr ? now : &real_now) {}

LogFile::~LogFile() {
  if (file_ != nullptr && file_ != stdout) {
    std::fclose(file_);
  }
}

std::filesystem::path LogFile::backup_name(const std::filesystem::path& path,
                                           std::chrono::system_clock::time_point t) {
  std::filesystem::path out = path.parent_path();
  out /= path.stem().string() + "-" + stamp(t) + path.extension().string();
  return out;
}

std::optional<std::string> LogFile::open() {
  if (path_ == "-") {
    file_ = stdout;
    return std::nullopt;
  }
  const std::filesystem::path path(path_);
  std::error_code ec;
  if (path.has_parent_path() && !std::filesystem::exists(path.parent_path(), ec)) {
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) {
      return "failed to create audit log dir " + path.parent_path().string() + ": " + ec.message();
    }
    ::chmod(path.parent_path().c_str(), 0700);
  }
  const int fd = ::open(path_.c_str(), O_CREAT | O_APPEND | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) {
    return "failed to create audit log file " + path_ + ": " + std::strerror(errno);
  }
  struct stat st {};
  size_ = ::fstat(fd, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  file_ = ::fdopen(fd, "a");
  if (file_ == nullptr) {
    ::close(fd);
    return "failed to open audit log file " + path_;
  }
  return std::nullopt;
}

std::optional<std::string> LogFile::write(const std::string& text) {
  if (file_ == nullptr) {
    return "the audit log " + path_ + " is not open";
  }
  if (file_ != stdout) {
    const int mb = rotation_.max_size_mb > 0 ? rotation_.max_size_mb : kDefaultMaxSizeMb;
    const std::uint64_t limit = static_cast<std::uint64_t>(mb) * kMegabyte;
    if (size_ > 0 && size_ + text.size() > limit) {
      if (auto error = rotate()) {
        return error;
      }
    }
  }
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0) {
    return "cannot write the audit log " + path_ + ": " + std::strerror(errno);
  }
  size_ += text.size();
  return std::nullopt;
}

std::optional<std::string> LogFile::rotate() {
  std::fclose(file_);
  file_ = nullptr;
  std::error_code ec;
  std::filesystem::rename(path_, backup_name(path_, now_()), ec);
  if (ec) {
    return "cannot rotate the audit log " + path_ + ": " + ec.message();
  }
  if (auto error = open()) {
    return error;
  }
  remove_old_backups();
  return std::nullopt;
}

void LogFile::remove_old_backups() {
  if (rotation_.max_backups == 0 && rotation_.max_age_days == 0) {
    return;
  }
  const std::filesystem::path path(path_);
  const std::string prefix = path.stem().string() + "-";
  const std::string ext = path.extension().string();
  std::vector<std::pair<std::int64_t, std::filesystem::path>> backups;
  std::error_code ec;
  const auto folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() != prefix.size() + kStampLength + ext.size() || !name.starts_with(prefix) ||
        !name.ends_with(ext)) {
      continue;
    }
    if (auto seconds = stamp_seconds(name.substr(prefix.size(), kStampLength))) {
      backups.emplace_back(*seconds, entry.path());
    }
  }
  std::sort(backups.begin(), backups.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });  // newest first
  const auto now_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now_().time_since_epoch()).count();
  const std::int64_t cutoff = now_seconds - std::int64_t{rotation_.max_age_days} * 86400;
  for (size_t i = 0; i < backups.size(); ++i) {
    const bool too_many =
        rotation_.max_backups > 0 && i >= static_cast<size_t>(rotation_.max_backups);
    const bool too_old = rotation_.max_age_days > 0 && backups[i].first < cutoff;
    if (too_many || too_old) {
      std::filesystem::remove(backups[i].second, ec);
    }
  }
}

}  // namespace apiserver::audit
