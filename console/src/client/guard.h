// The console's network threads' last line of defence (the request worker, the watch streams):
// an exception escaping their work or a callback they run (the UI's wake-up) would end the
// whole console. It is caught here, written to stderr with what the thread was doing, and
// handed back as an error text, so the request completes with an error and the stream retries.
#pragma once

#include <functional>
#include <string>

namespace console::client::detail {

// Runs `work`. Returns false when it threw, with `error` set to "internal error: <what>:
// <exception>" (also written to stderr). Never throws.
bool run_guarded(const std::string& what, const std::function<void()>& work,
                 std::string& error) noexcept;

}  // namespace console::client::detail
