#include "client/guard.h"

#include <iostream>
#include <mutex>

#include "common/guard.h"

namespace console::client::detail {

std::optional<std::string> run_guarded(const std::string& what,
                                       const std::function<void()>& work) noexcept {
  std::optional<std::string> error;
  common::run_guarded(work, [&](std::string&& text) {
    error = "internal error: " + what + ": " +
            (text.empty() ? std::string("an exception of unknown type") : text);
    static std::mutex mu;  // one whole line at a time
    std::lock_guard lock(mu);
    std::cerr << "console: " << *error << std::endl;
  });
  return error;
}

}  // namespace console::client::detail
