// The store threads' last line of defence: an exception escaping a callback or a step of a
// store thread (the commit loop, the watch sync thread, the lease timer) would end the process.
// It is caught here, written to stderr with what the thread was doing, and reported as a failure
// so the thread carries on. Expected errors are Status values and never reach it.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace store {

// Runs `work`. Returns false when it threw, after one line on stderr naming `what` and the
// exception; `detail` (optional) receives the exception's text. Never throws.
bool run_guarded(std::string_view what, const std::function<void()>& work,
                 std::string* detail = nullptr) noexcept;

}  // namespace store
