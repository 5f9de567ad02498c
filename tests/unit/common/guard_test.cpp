// The exception barrier: what it says of each kind of exception, and that nothing escapes it.
#include <catch2/catch.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "common/guard.h"

using common::describe_current_exception;
using common::run_guarded;

namespace {

// What run_guarded reports for `work`; "(none)" when it did not report.
std::string reported(const std::function<void()>& work, std::string_view unknown = {}) {
  std::string seen = "(none)";
  run_guarded(
      work, [&](std::string&& text) { seen = std::move(text); }, unknown);
  return seen;
}

}  // namespace

TEST_CASE("run_guarded returns true and reports nothing when the work returns", "[guard]") {
  int calls = 0;
  bool reported_any = false;
  CHECK(run_guarded([&] { ++calls; }, [&](std::string&&) { reported_any = true; }));
  CHECK(calls == 1);
  CHECK_FALSE(reported_any);
}

TEST_CASE("run_guarded names what the work threw", "[guard]") {
  CHECK(reported([] { throw std::runtime_error("disk on fire"); }) == "disk on fire");
  CHECK(reported([] { throw std::runtime_error(""); }) == "");
  CHECK(reported([] { throw 42; }) == "");
  CHECK(reported([] { throw 42; }, "unknown exception") == "unknown exception");
  CHECK_FALSE(run_guarded([] { throw 42; }, [](std::string&&) {}));
}

TEST_CASE("run_guarded swallows an exception escaping the report", "[guard]") {
  CHECK_FALSE(run_guarded([] { throw std::logic_error("first"); },
                          [](std::string&&) { throw std::runtime_error("second"); }));
}

TEST_CASE("describe_current_exception reads the exception being handled", "[guard]") {
  try {
    throw std::out_of_range("index 7");
  } catch (...) {
    CHECK(describe_current_exception() == "index 7");
  }
  try {
    throw 1.5;
  } catch (...) {
    CHECK(describe_current_exception("of unknown type") == "of unknown type");
  }
}
