// Shared helpers for the store's unit tests: temp dirs, an injected clock, a fixture that opens a
// fast (NoSync) store, and Catch2 printers so that failures show codes and key-values by name.
#pragma once

#define CATCH_CONFIG_ENABLE_OPTIONAL_STRINGMAKER
#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "store/status.h"
#include "store/store.h"
#include "store/types.h"
#include "store/watch.h"

#include "../temp_dir.h"

namespace Catch {

template <>
struct StringMaker<store::Code> {
  static std::string convert(store::Code code) {
    switch (code) {
      case store::Code::Ok:
        return "Ok";
      case store::Code::Compacted:
        return "Compacted";
      case store::Code::FutureRevision:
        return "FutureRevision";
      case store::Code::DuplicateKey:
        return "DuplicateKey";
      case store::Code::TooManyOps:
        return "TooManyOps";
      case store::Code::LeaseNotFound:
        return "LeaseNotFound";
      case store::Code::LeaseExists:
        return "LeaseExists";
      case store::Code::LeaseTTLTooLarge:
        return "LeaseTTLTooLarge";
      case store::Code::RequestTooLarge:
        return "RequestTooLarge";
      case store::Code::EmptyKey:
        return "EmptyKey";
      case store::Code::KeyNotFound:
        return "KeyNotFound";
      case store::Code::InvalidArgument:
        return "InvalidArgument";
      case store::Code::Locked:
        return "Locked";
      case store::Code::Closed:
        return "Closed";
      case store::Code::Io:
        return "Io";
      case store::Code::Internal:
        return "Internal";
    }
    return "Code(" + std::to_string(static_cast<int>(code)) + ")";
  }
};

template <>
struct StringMaker<store::KeyValue> {
  static std::string convert(const store::KeyValue& kv) {
    std::ostringstream out;
    out << "{key=" << kv.key << " create=" << kv.create_revision << " mod=" << kv.mod_revision
        << " version=" << kv.version << " value=" << kv.value << " lease=" << kv.lease << "}";
    return out.str();
  }
};

template <>
struct StringMaker<store::Status> {
  static std::string convert(const store::Status& status) {
    return StringMaker<store::Code>::convert(status.code()) + ": " + status.message();
  }
};

}  // namespace Catch

namespace store_test {

using namespace std::chrono_literals;

// How long a test waits for something that should happen promptly before it fails.
inline constexpr std::chrono::milliseconds kWait{5000};

// A unique directory under the system temp dir, removed with everything in it on destruction.
class TempDir : public testing_support::TempDir {
 public:
  TempDir() : testing_support::TempDir("ks-store-test") {}
};

// A clock that moves only when the test says so.
class FakeClock : public store::Clock {
 public:
  FakeClock() : now_(std::chrono::system_clock::time_point{std::chrono::hours(24 * 365 * 50)}) {}
  std::chrono::system_clock::time_point now() const override { return now_.load(); }
  void advance(std::chrono::system_clock::duration by) { now_.store(now_.load() + by); }

 private:
  std::atomic<std::chrono::system_clock::time_point> now_;
};

// Options for a test store in `dir`: no fsync, the fake clock, and a lease timer that never fires
// on its own during a test (tests expire leases explicitly).
inline store::Options test_options(const std::filesystem::path& dir,
                                   std::shared_ptr<store::Clock> clock = nullptr) {
  store::Options options;
  options.dir = dir;
  options.durability = store::Durability::NoSync;
  options.clock = std::move(clock);
  options.lease_check_interval = std::chrono::hours(1);
  options.initial_map_size = size_t{64} << 20;
  return options;
}

inline std::unique_ptr<store::Store> open_store(const store::Options& options) {
  auto opened = store::Store::open(options);
  INFO("Store::open: " << Catch::Detail::stringify(opened.status()));
  REQUIRE(opened.is_ok());
  return std::move(opened).value();
}

// Opens a NoSync store in a fresh temp dir with a fake clock; reopen() closes and opens it again.
class StoreFixture {
 public:
  StoreFixture() : clock(std::make_shared<FakeClock>()) { store = open_store(options()); }

  store::Options options() const { return test_options(dir.path(), clock); }

  void reopen() {
    store.reset();
    store = open_store(options());
  }

  store::Revision rev() const { return store->current_revision(); }

  store::PutResponse put(const std::string& key, const std::string& value,
                         store::LeaseId lease = 0) {
    store::PutRequest request;
    request.key = key;
    request.value = value;
    request.lease = lease;
    auto result = store->put(request);
    INFO("put " << key << ": " << Catch::Detail::stringify(result.status()));
    REQUIRE(result.is_ok());
    return result.value();
  }

  store::DeleteRangeResponse del(const std::string& key, const std::string& range_end = {}) {
    store::DeleteRangeRequest request;
    request.key = key;
    request.range_end = range_end;
    auto result = store->delete_range(request);
    INFO("delete " << key << ": " << Catch::Detail::stringify(result.status()));
    REQUIRE(result.is_ok());
    return result.value();
  }

  store::RangeResponse range(store::RangeRequest request) {
    auto result = store->range(request);
    INFO("range " << request.key << ": " << Catch::Detail::stringify(result.status()));
    REQUIRE(result.is_ok());
    return result.value();
  }

  std::optional<store::KeyValue> get(const std::string& key, store::Revision revision = 0) {
    store::RangeRequest request;
    request.key = key;
    request.revision = revision;
    auto response = range(request);
    if (response.kvs.empty()) {
      return std::nullopt;
    }
    REQUIRE(response.kvs.size() == 1);
    return response.kvs.front();
  }

  // Every live key at `revision` (0 = current), in key order.
  std::vector<store::KeyValue> all(store::Revision revision = 0) {
    store::RangeRequest request;
    request.key = std::string(1, '\0');
    request.range_end = std::string(1, '\0');
    request.revision = revision;
    return range(request).kvs;
  }

  store::TxnResponse txn(const store::TxnRequest& request) {
    auto result = store->txn(request);
    INFO("txn: " << Catch::Detail::stringify(result.status()));
    REQUIRE(result.is_ok());
    return result.value();
  }

  store::LeaseId grant(int64_t ttl, store::LeaseId id = 0) {
    auto result = store->lease_grant({ttl, id});
    INFO("lease_grant: " << Catch::Detail::stringify(result.status()));
    REQUIRE(result.is_ok());
    return result->id;
  }

  TempDir dir;
  std::shared_ptr<FakeClock> clock;
  std::unique_ptr<store::Store> store;
};

inline store::PutRequest put_op(const std::string& key, const std::string& value) {
  store::PutRequest request;
  request.key = key;
  request.value = value;
  return request;
}

inline store::RangeRequest range_op(const std::string& key, const std::string& range_end = {}) {
  store::RangeRequest request;
  request.key = key;
  request.range_end = range_end;
  return request;
}

inline store::DeleteRangeRequest delete_op(const std::string& key,
                                           const std::string& range_end = {}) {
  store::DeleteRangeRequest request;
  request.key = key;
  request.range_end = range_end;
  return request;
}

inline std::vector<std::string> keys_of(const std::vector<store::KeyValue>& kvs) {
  std::vector<std::string> keys;
  keys.reserve(kvs.size());
  for (const auto& kv : kvs) {
    keys.push_back(kv.key);
  }
  return keys;
}

// The next response of a watcher; fails the test if none arrives in time.
inline store::WatchResponse next_response(store::Watcher& watcher) {
  store::WatchResponse response;
  bool got = watcher.next(response, kWait);
  INFO("waited " << kWait.count() << " ms for watch " << watcher.id());
  REQUIRE(got);
  return response;
}

}  // namespace store_test
