#include "guard.h"

#include "apiserver/log.h"
#include "common/guard.h"

namespace apiserver {

namespace {

constexpr std::string_view kUnknown = "unknown exception";

}  // namespace

std::string describe_exception(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (...) {
    return common::describe_current_exception(kUnknown);
  }
}

bool run_guarded(std::string_view what, const std::function<void()>& work) noexcept {
  return common::run_guarded(
      work,
      [&](std::string&& text) {
        log::error("internal error in " + std::string(what) + ": " + text);
      },
      kUnknown);
}

}  // namespace apiserver
