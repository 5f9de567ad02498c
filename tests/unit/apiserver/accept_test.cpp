// The Accept header: how it splits into media ranges, the encoding of resource responses and
// whether a Table is asked for, as kubectl and client-go send them.
#include <catch2/catch.hpp>

#include <string>

#include "endpoints/accept.h"

using apiserver::endpoints::accepted_encoding;
using apiserver::endpoints::parse_accept;
using apiserver::endpoints::wants_table;

TEST_CASE("an Accept header splits into media types and parameters in order", "[accept]") {
  const auto ranges =
      parse_accept(" application/json ; as=Table;v = v1 ;g=meta.k8s.io,application/yaml;q=0.5,,x");
  REQUIRE(ranges.size() == 4);
  CHECK(ranges[0].media_type == "application/json");
  REQUIRE(ranges[0].params.size() == 3);
  CHECK(ranges[0].params[1].first == "v");
  CHECK(ranges[0].params[1].second == "v1");
  CHECK(*ranges[0].param("g") == "meta.k8s.io");
  CHECK(ranges[0].param("q") == nullptr);
  CHECK(ranges[1].media_type == "application/yaml");
  CHECK(*ranges[1].param("q") == "0.5");
  CHECK(ranges[2].media_type.empty());
  CHECK(ranges[3].media_type == "x");
  CHECK(parse_accept("a;flag")[0].param("flag")->empty());
}

TEST_CASE("resource responses are JSON unless only YAML is accepted", "[accept]") {
  const auto [header, encoding] = GENERATE(table<std::string, std::string>({
      {"", "json"},
      {"application/json", "json"},
      {"*/*", "json"},
      {"application/*", "json"},
      {"application/json;q=0", "json"},
      {"application/yaml", "yaml"},
      {"application/yaml, application/json", "json"},
      {"application/yaml;q=0.9,\t*/*\t", "json"},
      {"application/vnd.kubernetes.protobuf, application/yaml", "yaml"},
      {"application/vnd.kubernetes.protobuf", ""},
      {"text/html", ""},
      {"Application/JSON", ""},
      {",", ""},
  }));
  CAPTURE(header);
  CHECK(accepted_encoding(header) == encoding);
}

TEST_CASE("a Table is asked for with as=Table, g=meta.k8s.io and v=v1", "[accept]") {
  const auto [header, is_table] = GENERATE(table<std::string, bool>({
      {"application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
       "g=meta.k8s.io,application/json",
       true},
      {"application/json; as=Table; g=meta.k8s.io; v=v1", true},
      {"application/yaml;as=Table;v=v1;g=meta.k8s.io", true},
      {"application/json;as=Table;v=v1beta1;g=meta.k8s.io", false},
      {"application/json;as=Table;v=v1alpha1;g=meta.k8s.io", false},
      {"application/json;as=Table;v=v1", false},
      {"application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io", false},
      {"application/json;as=Table;v=v1;g=meta.k8s.io.example", false},
      {"application/json", false},
      {"", false},
  }));
  CAPTURE(header);
  CHECK(wants_table(header) == is_table);
}

TEST_CASE("an Accept quality reads as Go's ParseFloat, and anything else is 0", "[accept]") {
  using apiserver::endpoints::accept_quality;
  CHECK(accept_quality("1") == 1.0);
  CHECK(accept_quality("0.5") == 0.5);
  CHECK(accept_quality(" .5 ") == 0.5);
  CHECK(accept_quality("+1") == 1.0);
  CHECK(accept_quality("5e-1") == 0.5);
  CHECK(accept_quality("0") == 0.0);
  CHECK(accept_quality("") == 0.0);
  CHECK(accept_quality("0.5x") == 0.0);
  CHECK(accept_quality("x") == 0.0);
  CHECK(accept_quality("1,0") == 0.0);
}
