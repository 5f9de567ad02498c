// Quantities written back as resource.Quantity's canonical String() does (common/quantity), as
// ResourceQuota's status.used shows them.
#include <catch2/catch.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "common/quantity.h"

using common::QuantityFormat;

TEST_CASE("a quantity's format is binary with a binary suffix", "[common][quantity]") {
  CHECK(common::quantity_format("256Mi") == QuantityFormat::BinarySI);
  CHECK(common::quantity_format("1Ki") == QuantityFormat::BinarySI);
  CHECK(common::quantity_format("1G") == QuantityFormat::DecimalSI);
  CHECK(common::quantity_format("300m") == QuantityFormat::DecimalSI);
  CHECK(common::quantity_format("128974848") == QuantityFormat::DecimalSI);
}

TEST_CASE("sums are written in canonical form, in their format", "[common][quantity]") {
  const std::vector<std::tuple<std::string, QuantityFormat, std::string>> cases = {
      // cpu: millicores until whole, then the largest decimal exponent.
      {"0.6", QuantityFormat::DecimalSI, "600m"},
      {"1", QuantityFormat::DecimalSI, "1"},
      {"1.5", QuantityFormat::DecimalSI, "1500m"},
      {"2000", QuantityFormat::DecimalSI, "2k"},
      {"0", QuantityFormat::DecimalSI, "0"},
      // memory given in decimal units stays decimal.
      {"1500M", QuantityFormat::DecimalSI, "1500M"},
      {"2G", QuantityFormat::DecimalSI, "2G"},
      {"128974848", QuantityFormat::DecimalSI, "128974848"},
      // binary: the largest power of 1024 that divides, else the plain number.
      {"512Mi", QuantityFormat::BinarySI, "512Mi"},
      {"1024Mi", QuantityFormat::BinarySI, "1Gi"},
      {"1536Mi", QuantityFormat::BinarySI, "1536Mi"},
      {"1000000", QuantityFormat::BinarySI, "1000000"},
      {"512", QuantityFormat::BinarySI, "512"},
      {"0", QuantityFormat::BinarySI, "0"},
      // counts.
      {"3", QuantityFormat::DecimalSI, "3"},
      {"1000", QuantityFormat::DecimalSI, "1k"},
  };
  for (const auto& [input, format, want] : cases) {
    CAPTURE(input, want);
    auto value = common::parse_quantity(input);
    REQUIRE(value);
    CHECK(common::format_quantity(*value, format) == want);
  }
  // A sum: 1G + 500M in the first one's format.
  CHECK(common::format_quantity(*common::parse_quantity("1G") + *common::parse_quantity("500M"),
                                QuantityFormat::DecimalSI) == "1500M");
}
