// The console's network threads' last line of defence (the request worker, the watch streams):
// an exception escaping their work or a callback they run (the UI's wake-up) would end the
// whole console. It is caught here, written to stderr with what the thread was doing, and
// handed back as an error text, so the request completes with an error and the stream retries.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace console::client::detail {

// Runs `work`. When it threw, returns "internal error: <what>: <exception>" (also written to
// stderr); nullopt when it returned. Never throws.
std::optional<std::string> run_guarded(const std::string& what,
                                       const std::function<void()>& work) noexcept;

}  // namespace console::client::detail
