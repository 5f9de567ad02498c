// common::Result: a value or the error that says why there is none.
#include <catch2/catch.hpp>
#include <string>

#include "common/result.h"

namespace {

common::Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') {
    return std::string("not a digit: ") + c;
  }
  return c - '0';
}

}  // namespace

TEST_CASE("a result holds the value or the error", "[result]") {
  auto seven = parse_digit('7');
  REQUIRE(seven.ok());
  CHECK(static_cast<bool>(seven));
  CHECK(*seven == 7);

  auto letter = parse_digit('x');
  REQUIRE_FALSE(letter.ok());
  CHECK(letter.error() == "not a digit: x");
}

TEST_CASE("a result whose value and error are both strings", "[result]") {
  using Text = common::Result<std::string>;
  Text value = std::string("ready");
  Text failed = Text::failure("no such file");
  CHECK(value.ok());
  CHECK(value->size() == 5);
  CHECK_FALSE(failed.ok());
  CHECK(failed.error() == "no such file");
}
