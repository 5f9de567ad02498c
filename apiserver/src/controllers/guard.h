// The controllers' last line of defence: an exception that escapes a controller's work (a bug,
// or an allocation failure) is logged with what the controller was doing and reported as a
// failure, so the controller's thread lives on and tries that work again later. Expected errors
// are return values and never reach it.
#pragma once

#include <functional>
#include <string>

namespace apiserver::controllers {

// Runs `work`. Returns false, after one error line in the log naming `what` (e.g.
// "crd controller: reconcile customresourcedefinition foos.example.com") and the exception,
// when it threw. Never throws.
bool run_guarded(const std::string& what, const std::function<void()>& work) noexcept;

}  // namespace apiserver::controllers
