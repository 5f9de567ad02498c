#include <catch2/catch.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <variant>

#include "endpoints/patch/merge_patch.h"
#include "patch_rows.h"

using apiserver::endpoints::patch::apply_merge_patch;
using apiserver::endpoints::patch::create_merge_patch;
using apiserver::endpoints::patch::merge_patch_strict_error;
using apiserver::endpoints::patch::PatchError;
using nlohmann::json;

namespace {

// A table row; its error is PatchError::message.
using Row = apiserver::testing::PatchRow;

void check_row(const Row& row) {
  CAPTURE(row.name, row.doc, row.patch);
  if (const auto e = apiserver::testing::apply_row(row, apply_merge_patch)) {
    CHECK(e->message == row.error);
  }
}

json merged(const json& doc, const json& patch) {
  auto out = apply_merge_patch(doc, patch);
  REQUIRE(std::holds_alternative<json>(out));
  return std::get<json>(std::move(out));
}

// Deterministic random JSON: std::mt19937's output sequence is fixed by the standard, and only
// its raw outputs are used.
class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  uint32_t below(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }

  // Keys come from a small set so that two documents share members often.
  std::string key() { return std::string(1, static_cast<char>('a' + below(6))); }

  json scalar(bool nulls) {
    switch (below(nulls ? 6 : 5)) {
      case 0:
        return static_cast<int>(below(5));
      case 1:
        return below(4) * 0.5;
      case 2:
        return std::string(below(3), 'x');
      case 3:
        return below(2) == 0;
      case 4:
        return "s" + std::to_string(below(3));
      default:
        return nullptr;
    }
  }

  json value(int depth, bool nulls) {
    const uint32_t pick = depth <= 0 ? 2 : below(5);
    if (pick == 0) {
      return object(depth - 1, nulls);
    }
    if (pick == 1) {
      json array = json::array();
      for (uint32_t n = below(4); n > 0; --n) {
        array.push_back(value(depth - 1, nulls));
      }
      return array;
    }
    return scalar(nulls);
  }

  json object(int depth, bool nulls) {
    json object = json::object();
    for (uint32_t n = below(5); n > 0; --n) {
      object[key()] = value(depth, nulls);
    }
    return object;
  }

  // A changed copy of `v` without nulls: members kept, dropped, added or replaced, recursively.
  json mutate(const json& v, int depth) {
    if (v.is_object()) {
      json out = json::object();
      for (auto it = v.begin(); it != v.end(); ++it) {
        const uint32_t roll = below(10);
        if (roll < 5) {
          if (!it->is_null()) {
            out[it.key()] = without_nulls(*it);
          }
        } else if (roll < 8) {
          out[it.key()] = mutate(*it, depth - 1);
        } else if (roll == 8) {
          out[it.key()] = value(depth, false);
        }  // else dropped
      }
      if (below(3) == 0) {
        out[key()] = value(depth, false);
      }
      return out;
    }
    if (below(2) == 0 && !v.is_null()) {
      return without_nulls(v);
    }
    return value(depth, false);
  }

 private:
  static json without_nulls(const json& v) {
    if (v.is_object()) {
      json out = json::object();
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!it->is_null()) {
          out[it.key()] = without_nulls(*it);
        }
      }
      return out;
    }
    if (v.is_array()) {
      json out = json::array();
      for (const auto& item : v) {
        if (!item.is_null()) {
          out.push_back(without_nulls(item));
        }
      }
      return out;
    }
    return v;
  }

  std::mt19937 rng_;
};

bool contains_null(const json& v) {
  if (v.is_null()) {
    return true;
  }
  if (v.is_structured()) {
    for (const auto& item : v) {
      if (contains_null(item)) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

TEST_CASE("the RFC 7386 appendix A examples", "[merge-patch]") {
  const Row row = GENERATE(values<Row>({
      {"1", R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})", ""},
      {"2", R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})", ""},
      {"3", R"({"a":"b"})", R"({"a":null})", R"({})", ""},
      {"4", R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})", ""},
      {"5", R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})", ""},
      {"6", R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})", ""},
      {"7", R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})", ""},
      {"8", R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})", ""},
      {"9", R"(["a","b"])", R"(["c","d"])", R"(["c","d"])", ""},
      {"10", R"({"a":"b"})", R"(["c"])", R"(["c"])", ""},
      // RFC: the result is null / "bar". evanphx (and so kube-apiserver) rejects both patches.
      {"11 (kube rejects)", R"({"a":"foo"})", "null", "", "Invalid JSON Patch"},
      {"12 (kube rejects)", R"({"a":"foo"})", R"("bar")", "", "Invalid JSON Patch"},
      {"13", R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})", ""},
      {"14", R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})", ""},
      {"15", R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})", ""},
  }));
  check_row(row);
}

TEST_CASE("the RFC 7386 section 3 example, both ways", "[merge-patch]") {
  const json original = json::parse(R"({"title":"Goodbye!",
    "author":{"givenName":"John","familyName":"Doe"},
    "tags":["example","sample"],"content":"This will be unchanged"})");
  const json patch = json::parse(R"({"title":"Hello!","phoneNumber":"+01-123-456-7890",
    "author":{"familyName":null},"tags":["example"]})");
  const json target = json::parse(R"({"title":"Hello!","author":{"givenName":"John"},
    "tags":["example"],"content":"This will be unchanged","phoneNumber":"+01-123-456-7890"})");
  CHECK(merged(original, patch) == target);
  CHECK(create_merge_patch(original, target) == patch);
}

TEST_CASE("merge patches behave as evanphx/json-patch v4 applies them", "[merge-patch]") {
  const Row row = GENERATE(values<Row>({
      {"nested objects merge", R"({"a":{"b":{"c":1,"d":2}}})", R"({"a":{"b":{"c":3}}})",
       R"({"a":{"b":{"c":3,"d":2}}})", ""},
      {"deleting a missing member is a no-op", R"({"a":1})", R"({"b":null})", R"({"a":1})", ""},
      {"an empty patch changes nothing", R"({"a":[1]})", R"({})", R"({"a":[1]})", ""},
      {"an object replaces a scalar, its nulls pruned", R"({"a":1})",
       R"({"a":{"b":null,"c":{"d":null,"e":[null,1]}}})", R"({"a":{"c":{"e":[1]}}})", ""},
      {"a new member has its nulls pruned", R"({})", R"({"a":[null,{"b":null}]})", R"({"a":[{}]})",
       ""},
      {"a member that was null is replaced and pruned", R"({"a":null})", R"({"a":[1,null]})",
       R"({"a":[1]})", ""},
      {"an array replacing an array loses its nulls", R"({"a":[1]})", R"({"a":[null,2]})",
       R"({"a":[2]})", ""},
      {"an array replacing an object keeps its nulls", R"({"a":{"x":1}})", R"({"a":[null,2]})",
       R"({"a":[null,2]})", ""},
      {"a scalar replacing an object", R"({"a":{"x":1}})", R"({"a":"s"})", R"({"a":"s"})", ""},
      {"numbers are replaced", R"({"a":1})", R"({"a":1.5})", R"({"a":1.5})", ""},
      {"nulls already in the document stay", R"({"a":{"b":null},"c":null})", R"({"a":{"d":1}})",
       R"({"a":{"b":null,"d":1},"c":null})", ""},
      {"an array patch replaces the document, pruned", R"({"a":1})", R"([null,{"b":null},[null]])",
       R"([{},[]])", ""},
      {"an object patch onto a scalar document", R"(5)", R"({"a":null,"b":1})", R"({"b":1})", ""},
      {"a number patch", R"({"a":1})", R"(3)", "", "Invalid JSON Patch"},
      {"a boolean patch", R"({"a":1})", R"(false)", "", "Invalid JSON Patch"},
      {"a null document", "null", R"({"a":1})", "", "Invalid JSON Document"},
  }));
  check_row(row);
}

TEST_CASE("merge patch errors carry kube-apiserver's status", "[merge-patch]") {
  SECTION("a patch that is not an object or array is a 400") {
    const auto out = apply_merge_patch(json::object(), json(nullptr));
    REQUIRE(std::holds_alternative<PatchError>(out));
    const auto& e = std::get<PatchError>(out);
    CHECK(e.code == 400);
    CHECK(e.reason == "BadRequest");
    CHECK(e.message == "Invalid JSON Patch");
    CHECK(e.detail == "Invalid JSON Patch");
  }
  SECTION("a null document passes through as a 500, before the patch is looked at") {
    const auto out = apply_merge_patch(json(nullptr), json(nullptr));
    REQUIRE(std::holds_alternative<PatchError>(out));
    const auto& e = std::get<PatchError>(out);
    CHECK(e.code == 500);
    CHECK(e.reason.empty());
    CHECK(e.message == "Invalid JSON Document");
  }
}

TEST_CASE("fieldValidation=Strict|Warn requires an object or null merge patch",
          "[merge-patch][strict]") {
  CHECK_FALSE(merge_patch_strict_error(json::parse(R"({"a":null})")));
  CHECK_FALSE(merge_patch_strict_error(json(nullptr)));
  struct Body {
    std::string patch;
    std::string message;
  };
  const Body body = GENERATE(values<Body>({
      {"[1]",
       "error decoding patch: json: cannot unmarshal array into Go value of type "
       "map[string]interface {}"},
      {R"("x")",
       "error decoding patch: json: cannot unmarshal string into Go value of type "
       "map[string]interface {}"},
      {"1.5",
       "error decoding patch: json: cannot unmarshal number into Go value of type "
       "map[string]interface {}"},
      {"true",
       "error decoding patch: json: cannot unmarshal bool into Go value of type "
       "map[string]interface {}"},
  }));
  CAPTURE(body.patch);
  const auto e = merge_patch_strict_error(json::parse(body.patch));
  REQUIRE(e);
  CHECK(e->code == 400);
  CHECK(e->reason == "BadRequest");
  CHECK(e->message == body.message);
}

TEST_CASE("create_merge_patch diffs objects like jsonpatch.CreateMergePatch", "[merge-patch]") {
  struct Diff {
    std::string name;
    std::string from;
    std::string to;
    std::string patch;
  };
  const Diff row = GENERATE(values<Diff>({
      {"equal documents", R"({"a":{"b":[1,{"c":2}]}})", R"({"a":{"b":[1,{"c":2}]}})", "{}"},
      {"numbers compare by value", R"({"a":1})", R"({"a":1.0})", "{}"},
      {"a removed member becomes null", R"({"a":1,"b":2})", R"({"b":2})", R"({"a":null})"},
      {"an added member", R"({})", R"({"a":{"b":1}})", R"({"a":{"b":1}})"},
      {"a changed nested member only", R"({"a":{"b":1,"c":2}})", R"({"a":{"b":1,"c":3}})",
       R"({"a":{"c":3}})"},
      {"an unchanged nested object is left out", R"({"a":{"b":1},"c":1})", R"({"a":{"b":1},"c":2})",
       R"({"c":2})"},
      {"a changed array is replaced whole", R"({"a":[1,2,3]})", R"({"a":[1,2]})", R"({"a":[1,2]})"},
      {"a type change replaces", R"({"a":{"b":1}})", R"({"a":[1]})", R"({"a":[1]})"},
      {"a string is not a number", R"({"a":1})", R"({"a":"1"})", R"({"a":"1"})"},
      {"null to a value", R"({"a":null})", R"({"a":0})", R"({"a":0})"},
      {"null to null", R"({"a":null})", R"({"a":null})", "{}"},
      {"a value to null cannot be told from a removal", R"({"a":1})", R"({"a":null})",
       R"({"a":null})"},
      {"to an array", R"({"a":1})", R"([1])", R"([1])"},
      {"from an array", R"([1])", R"({"a":1})", R"({"a":1})"},
  }));
  CAPTURE(row.name);
  CHECK(create_merge_patch(json::parse(row.from), json::parse(row.to)) == json::parse(row.patch));
}

// merge(a, diff(a, b)) == b over random pairs. `b` holds no null at any depth: a null member of
// `b` is written as null in the patch, which the merge reads as "delete"; and nulls inside a new
// array or object are pruned by evanphx's merge. `a` may hold nulls anywhere.
TEST_CASE("a created merge patch turns the first document into the second", "[merge-patch]") {
  Generator gen(20240611);
  int changed = 0;
  int deletions = 0;
  int nested = 0;
  for (int i = 0; i < 400; ++i) {
    const json a = gen.object(3, true);
    const json b = gen.below(4) == 0 ? gen.object(3, false) : gen.mutate(a, 3);
    REQUIRE_FALSE(contains_null(b));
    const json patch = create_merge_patch(a, b);
    CAPTURE(i, a.dump(), b.dump(), patch.dump());
    CHECK(merged(a, patch) == b);
    CHECK(create_merge_patch(b, b) == json::object());

    changed += patch.empty() ? 0 : 1;
    const std::string text = patch.dump();
    deletions += text.find("null") != std::string::npos ? 1 : 0;
    for (auto it = patch.begin(); it != patch.end(); ++it) {
      if (it->is_object() && a.contains(it.key()) && a[it.key()].is_object()) {
        ++nested;
        break;
      }
    }
  }
  // The generator must exercise changes, deletions and recursive diffs, or the property is idle.
  CHECK(changed > 300);
  CHECK(deletions > 100);
  CHECK(nested > 40);
}

TEST_CASE("nulls in the target are why the round trip excludes them", "[merge-patch]") {
  const json a = json::parse(R"({"x":1,"y":[1]})");
  const json b = json::parse(R"({"x":null,"y":[1,null]})");
  CHECK(merged(a, create_merge_patch(a, b)) == json::parse(R"({"y":[1]})"));
}
