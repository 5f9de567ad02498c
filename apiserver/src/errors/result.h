// Result<T>: a value, or the Status that says why there is none. The API layers return expected
// failures (not found, conflict, invalid, forbidden) this way rather than through out-parameters;
// a Status is the whole answer, ready to be written.
#pragma once

#include <utility>
#include <variant>

#include "errors/status.h"

namespace apiserver::errors {

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}         // NOLINT: implicit
  Result(Status status) : state_(std::in_place_index<1>, std::move(status)) {}  // NOLINT: implicit

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // The value; only when ok().
  T& operator*() { return std::get<0>(state_); }
  const T& operator*() const { return std::get<0>(state_); }
  T* operator->() { return &std::get<0>(state_); }
  const T* operator->() const { return &std::get<0>(state_); }

  // The failure; only when !ok().
  const Status& status() const { return std::get<1>(state_); }

 private:
  std::variant<T, Status> state_;
};

}  // namespace apiserver::errors
