#include "guard.h"

#include "apiserver/log.h"

namespace apiserver {

std::string describe_exception(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

bool run_guarded(std::string_view what, const std::function<void()>& work) noexcept {
  try {
    work();
    return true;
  } catch (...) {
    try {
      log::error("internal error in " + std::string(what) + ": " +
                 describe_exception(std::current_exception()));
    } catch (...) {
      // Nothing more can be said (out of memory): the result still says the work failed.
    }
    return false;
  }
}

}  // namespace apiserver
