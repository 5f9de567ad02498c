// Result<T, E>: a value, or the error that says why there is none. Expected failures (not found,
// conflict, invalid input) are returned this way rather than through out-parameters or
// exceptions. E is the error's type: a message (std::string, the default) or a richer value such
// as the API server's Status.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace common {

template <class T, class E = std::string>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit
  Result(E error)                                                        // NOLINT: implicit
      requires(!std::is_same_v<T, E>)
      : state_(std::in_place_index<1>, std::move(error)) {}

  // A failure; the only way to make one when T and E are the same type.
  static Result failure(E error) { return Result(std::in_place_index<1>, std::move(error)); }

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // The value; only when ok().
  T& operator*() { return std::get<0>(state_); }
  const T& operator*() const { return std::get<0>(state_); }
  T* operator->() { return &std::get<0>(state_); }
  const T* operator->() const { return &std::get<0>(state_); }

  // The error; only when !ok().
  const E& error() const { return std::get<1>(state_); }

 private:
  template <std::size_t I, class V>
  Result(std::in_place_index_t<I> index, V&& value) : state_(index, std::forward<V>(value)) {}

  std::variant<T, E> state_;
};

}  // namespace common
