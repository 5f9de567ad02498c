// The last line of defence around work that runs on a thread of its own or for a caller that
// answers no request (thread loops, callbacks, controllers): an exception that escapes it is
// logged with what was being done and reported as a failure, so the thread lives on. Errors a
// caller expects are return values; reaching the guard is a bug to fix. Requests have their own
// barrier, which answers a 500 Status (server/barrier.h).
#pragma once

#include <exception>
#include <functional>
#include <string>
#include <string_view>

namespace apiserver {

// What an exception says about itself: what() of a std::exception, else "unknown exception".
std::string describe_exception(const std::exception_ptr& error);

// Runs `work`. Returns false, after one error line in the log naming `what` (e.g. "internal
// error in crd controller: reconcile customresourcedefinition foos.example.com: <what()>"), when
// it threw. Never throws.
bool run_guarded(std::string_view what, const std::function<void()>& work) noexcept;

}  // namespace apiserver
