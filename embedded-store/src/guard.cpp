#include "guard.h"

#include <exception>
#include <iostream>
#include <mutex>

namespace store {
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

bool run_guarded(std::string_view what, const std::function<void()>& work,
                 std::string* detail) noexcept {
  std::string text;
  try {
    work();
    return true;
  } catch (...) {
    text = describe_current();
  }
  try {
    static std::mutex mu;  // one whole line at a time
    std::lock_guard lock(mu);
    std::cerr << "store: " << what << ": unexpected exception: "
              << (text.empty() ? std::string("of unknown type") : text) << std::endl;
  } catch (...) {
    // Reporting failed (out of memory): the result still says the work failed.
  }
  if (detail != nullptr) {
    *detail = std::move(text);
  }
  return false;
}

}  // namespace store
