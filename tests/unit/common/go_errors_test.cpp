// apimachinery's aggregate error text.
#include <catch2/catch.hpp>

#include "common/go_errors.h"

TEST_CASE("errors aggregate as apimachinery prints them", "[go_errors]") {
  CHECK(common::go_aggregate({}) == "");
  CHECK(common::go_aggregate({"one"}) == "one");
  CHECK(common::go_aggregate({"one", "one"}) == "one");
  CHECK(common::go_aggregate({"invalid bearer token", "expired", "invalid bearer token"}) ==
        "[invalid bearer token, expired]");
}
