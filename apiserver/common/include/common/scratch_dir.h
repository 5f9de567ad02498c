// A private temporary directory that goes away, with everything in it, with its owner.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace common {

class ScratchDir {
 public:
  // A new directory "<prefix>-XXXXXX" (mode 0700) under the system's temporary directory;
  // nothing when it cannot be made.
  static std::optional<ScratchDir> make(std::string_view prefix);

  ScratchDir(ScratchDir&& other) noexcept;
  ScratchDir& operator=(ScratchDir&& other) noexcept;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();

  const std::filesystem::path& path() const { return path_; }

 private:
  explicit ScratchDir(std::filesystem::path path) : path_(std::move(path)) {}
  void remove() noexcept;

  std::filesystem::path path_;
};

}  // namespace common
