#include "client/guard.h"

#include <exception>
#include <iostream>
#include <mutex>

namespace console::client::detail {
namespace {

// The text of the exception being handled; never throws.
std::string describe_current() noexcept {
  try {
    throw;
  } catch (const std::exception& e) {
    try {
      return e.what();
    } catch (...) {
      return {};
    }
  } catch (...) {
    return {};
  }
}

}  // namespace

bool run_guarded(const std::string& what, const std::function<void()>& work,
                 std::string& error) noexcept {
  std::string detail;
  try {
    work();
    return true;
  } catch (...) {
    detail = describe_current();
  }
  try {
    error = "internal error: " + what + ": " +
            (detail.empty() ? std::string("an exception of unknown type") : detail);
    static std::mutex mu;  // one whole line at a time
    std::lock_guard lock(mu);
    std::cerr << "console: " << error << std::endl;
  } catch (...) {
    // Out of memory while reporting: the result still says the work failed.
  }
  return false;
}

}  // namespace console::client::detail
