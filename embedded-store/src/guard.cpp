#include "guard.h"

#include <iostream>
#include <mutex>

#include "common/guard.h"

namespace store {

bool run_guarded(std::string_view what, const std::function<void()>& work,
                 std::string* detail) noexcept {
  return common::run_guarded(work, [&](std::string&& text) {
    {
      static std::mutex mu;  // one whole line at a time
      std::lock_guard lock(mu);
      std::cerr << "store: " << what << ": unexpected exception: "
                << (text.empty() ? std::string_view("of unknown type") : std::string_view(text))
                << std::endl;
    }
    if (detail != nullptr) {
      *detail = std::move(text);
    }
  });
}

}  // namespace store
