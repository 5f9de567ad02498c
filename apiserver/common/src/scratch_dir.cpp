#include "common/scratch_dir.h"

#include <stdlib.h>

#include <string>
#include <system_error>

namespace common {

std::optional<ScratchDir> ScratchDir::make(std::string_view prefix) {
  std::error_code ec;
  auto base = std::filesystem::temp_directory_path(ec);
  if (ec) {
    return std::nullopt;
  }
  std::string pattern = (base / (std::string(prefix) + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return std::nullopt;
  }
  return ScratchDir(pattern);
}

ScratchDir::ScratchDir(ScratchDir&& other) noexcept : path_(std::move(other.path_)) {
  other.path_.clear();
}

ScratchDir& ScratchDir::operator=(ScratchDir&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

ScratchDir::~ScratchDir() {
  remove();
}

void ScratchDir::remove() noexcept {
  if (!path_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    path_.clear();
  }
}

}  // namespace common
