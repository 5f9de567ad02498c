// Status and Result<T>: how the store reports expected outcomes. Nothing on a request path
// throws; callers switch on Code. Messages are etcd's own texts so that clients (and the etcd
// gRPC endpoint built on this API) can classify them as etcd clients do.
#pragma once

#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace store {

enum class Code {
  Ok,
  Compacted,          // a revision below the compacted revision was asked for
  FutureRevision,     // a revision above the current revision was asked for
  DuplicateKey,       // a txn writes the same key twice
  TooManyOps,         // a txn has more operations than the limit
  LeaseNotFound,      // the lease ID is not (or no longer) granted
  LeaseExists,        // grant with an ID that is already granted
  LeaseTTLTooLarge,   // grant with a TTL above the maximum
  RequestTooLarge,    // a value or request above the size limit
  EmptyKey,           // a key must not be empty
  KeyNotFound,        // put with ignore_value/ignore_lease on a key that does not exist
  InvalidArgument,    // any other malformed request
  Locked,             // the data directory is held by another process
  Closed,             // the store is closing or closed
  Io,                 // LMDB or the file system failed
  Internal,           // an unexpected failure inside the store (a bug); nothing was changed
};

// etcd's message for each code (without detail); kept stable for clients and tests.
const char* default_message(Code code);

class Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  explicit Status(Code code) : code_(code), message_(default_message(code)) {}

  static Status ok() { return {}; }
  bool is_ok() const { return code_ == Code::Ok; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Code code_ = Code::Ok;
  std::string message_;
};

template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design

  bool is_ok() const { return status_.is_ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace store

// Always-on invariant check: a broken invariant aborts with context instead of corrupting data.
#define STORE_CHECK(cond, what)                                                          \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::cerr << "store invariant failed: " << #cond << " (" << (what) << ") at "     \
                << __FILE__ << ":" << __LINE__ << std::endl;                             \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)
