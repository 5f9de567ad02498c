#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "endpoints/served_json.h"

using apiserver::endpoints::append_served_json;
using apiserver::endpoints::served_json;
using nlohmann::json;

namespace {

// What the decoding path serves: the stored object with resourceVersion set, dumped.
std::string reference(const std::string& stored, int64_t revision, bool drop_type_meta) {
  json object = json::parse(stored);
  object["metadata"]["resourceVersion"] = std::to_string(revision);
  if (drop_type_meta) {
    object.erase("apiVersion");
    object.erase("kind");
  }
  return object.dump();
}

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  json object(int depth) {
    json out = json::object();
    int n = pick(0, 5);
    for (int i = 0; i < n; ++i) {
      out[key()] = value(depth + 1);
    }
    return out;
  }

  json value(int depth) {
    switch (pick(0, depth > 3 ? 5 : 7)) {
      case 0: return nullptr;
      case 1: return pick(0, 1) == 1;
      case 2: return pick(-1000000, 1000000);
      case 3: return static_cast<double>(pick(-100000, 100000)) / 64.0;
      case 4:
      case 5: return text();
      case 6: return object(depth);
      default: {
        json list = json::array();
        for (int i = pick(0, 4); i > 0; --i) {
          list.push_back(value(depth + 1));
        }
        return list;
      }
    }
  }

  // Keys on both sides of "resourceVersion" in byte order, and ones that share its prefix.
  std::string key() {
    static const char* const kKeys[] = {
        "a",        "annotations", "creationTimestamp", "generation", "labels",  "name",
        "namespace", "ownerReferences", "resource",     "resourceVersio", "resourceVersionX",
        "selfLink", "uid",         "zz",                "Upper",      "\xc3\xa9t\xc3\xa9"};
    return kKeys[pick(0, static_cast<int>(std::size(kKeys)) - 1)];
  }

  std::string text() {
    static const char* const kTexts[] = {"", "x", "quote \" and \\ backslash", "tab\tnew\nline",
                                         "{\"not\":[\"json\"]}", "\xe2\x9c\x93 utf-8", "\x01"};
    return kTexts[pick(0, static_cast<int>(std::size(kTexts)) - 1)];
  }

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

 private:
  std::mt19937 rng_;
};

}  // namespace

TEST_CASE("served JSON: resourceVersion goes into metadata in key order") {
  struct Row {
    const char* stored;
    const char* served;
  };
  const Row rows[] = {
      {R"({"metadata":{}})", R"({"metadata":{"resourceVersion":"42"}})"},
      {R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"b","uid":"u"}})",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"b","resourceVersion":"42","uid":"u"}})"},
      {R"({"data":{"k":"v"},"metadata":{"name":"a"}})",
       R"({"data":{"k":"v"},"metadata":{"name":"a","resourceVersion":"42"}})"},
      {R"({"metadata":{"uid":"u","zz":1}})", R"({"metadata":{"resourceVersion":"42","uid":"u","zz":1}})"},
      // A stale stored resourceVersion is replaced by the store revision.
      {R"({"metadata":{"name":"a","resourceVersion":"7","uid":"u"}})",
       R"({"metadata":{"name":"a","resourceVersion":"42","uid":"u"}})"},
      {R"({"metadata":{"labels":{"resourceVersion":"no"}},"spec":[1,2.5,-3e2,true,null]})",
       R"({"metadata":{"labels":{"resourceVersion":"no"},"resourceVersion":"42"},"spec":[1,2.5,-3e2,true,null]})"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.stored);
    auto out = served_json(row.stored, 42);
    REQUIRE(out);
    CHECK(*out == row.served);
  }
  CHECK(*served_json(R"({"apiVersion":"v1","kind":"Pod","metadata":{},"spec":{}})", 5, true) ==
        R"({"metadata":{"resourceVersion":"5"},"spec":{}})");
}

TEST_CASE("served JSON: text it is not sure of is left to the decoding path") {
  const char* const rejected[] = {
      "",
      "[]",
      "{}",
      R"({"kind":"x"})",                         // no metadata
      R"({"metadata":[]})",                      // metadata not an object
      R"({"metadata":{},"metadata":{}})",        // twice
      R"({ "metadata":{}})",                     // not compact: dump() would differ
      R"({"metadata":{"name": "a"}})",
      R"({"metadata":{"n\u0061me":"a"}})",       // escaped key
      R"({"metadata":{"name":"a"}}x)",           // trailing bytes
      R"({"metadata":{"name":"a"})",             // truncated
      R"({"metadata":{"name":"a}})",             // unterminated string
      R"({"metadata":{"name":tru}})",
      R"({"metadata":{"name":}})",
      R"({"metadata":{"name":"a",}})",
      "{\"metadata\":{\"name\":\"a\x01\"}}",     // raw control character
  };
  for (const char* text : rejected) {
    CAPTURE(text);
    CHECK_FALSE(served_json(text, 1));
    std::string out = "kept";
    CHECK_FALSE(append_served_json(text, 1, false, out));
    CHECK(out == "kept");
  }
  std::string deep(2000, '[');
  CHECK_FALSE(served_json(R"({"metadata":{},"x":)" + deep + std::string(2000, ']') + "}", 1));
}

TEST_CASE("served JSON: the same bytes as decoding and re-encoding, over generated objects") {
  Generator gen(20261123);
  for (int i = 0; i < 2000; ++i) {
    json object = gen.object(0);
    object["metadata"] = gen.object(1);
    if (gen.pick(0, 1) == 1) {
      object["apiVersion"] = "v1";
      object["kind"] = "Thing";
    }
    std::string stored = object.dump();
    int64_t revision = gen.pick(1, 1 << 30);
    bool drop = gen.pick(0, 1) == 1;
    CAPTURE(stored, revision, drop);
    auto out = served_json(stored, revision, drop);
    REQUIRE(out);
    CHECK(*out == reference(stored, revision, drop));
  }
}
