#include "controllers/guard.h"

#include <exception>

#include "apiserver/log.h"

namespace apiserver::controllers {
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

bool run_guarded(const std::string& what, const std::function<void()>& work) noexcept {
  std::string detail;
  try {
    work();
    return true;
  } catch (...) {
    detail = describe_current();
  }
  try {
    log::error(what + ": unexpected exception: " +
               (detail.empty() ? std::string("of unknown type") : detail));
  } catch (...) {
    // Logging failed (out of memory): the result still says the work failed.
  }
  return false;
}

}  // namespace apiserver::controllers
