#include "common/guard.h"

#include <exception>
#include <utility>

namespace common {

std::string describe_current_exception(std::string_view unknown) noexcept {
  try {
    throw;
  } catch (const std::exception& e) {
    try {
      return e.what();
    } catch (...) {
      return {};
    }
  } catch (...) {
    try {
      return std::string(unknown);
    } catch (...) {
      return {};
    }
  }
}

bool run_guarded(const std::function<void()>& work,
                 const std::function<void(std::string&& text)>& report,
                 std::string_view unknown) noexcept {
  std::string text;
  try {
    work();
    return true;
  } catch (...) {
    text = describe_current_exception(unknown);
  }
  try {
    report(std::move(text));
  } catch (...) {
    // Reporting failed (out of memory): the result still says the work failed.
  }
  return false;
}

}  // namespace common
