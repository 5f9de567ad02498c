#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "endpoints/patch/json_patch.h"
#include "patch_rows.h"

using apiserver::endpoints::patch::apply_json_patch;
using apiserver::endpoints::patch::json_patch_strict_errors;
using apiserver::endpoints::patch::kMaxJsonPatchOperations;
using apiserver::endpoints::patch::PatchError;
using nlohmann::json;

namespace {

// A table row; its error is the library's text, PatchError::detail.
using Row = apiserver::testing::PatchRow;

void check_row(const Row& row) {
  CAPTURE(row.name, row.doc, row.patch);
  if (const auto e = apiserver::testing::apply_row(row, apply_json_patch)) {
    CHECK(e->detail == row.error);
    CHECK(e->code == 422);
    CHECK(e->reason == "Invalid");
    CHECK(e->message == "the server rejected our request due to an error in our request");
  }
}

PatchError error_of(const json& doc, const json& patch) {
  const auto out = apply_json_patch(doc, patch);
  REQUIRE(std::holds_alternative<PatchError>(out));
  return std::get<PatchError>(out);
}

}  // namespace

TEST_CASE("the RFC 6902 appendix A examples", "[json-patch]") {
  const Row row = GENERATE(values<Row>({
      {"A.1 adding an object member", R"({"foo":"bar"})",
       R"([{"op":"add","path":"/baz","value":"qux"}])", R"({"baz":"qux","foo":"bar"})", ""},
      {"A.2 adding an array element", R"({"foo":["bar","baz"]})",
       R"([{"op":"add","path":"/foo/1","value":"qux"}])", R"({"foo":["bar","qux","baz"]})", ""},
      {"A.3 removing an object member", R"({"baz":"qux","foo":"bar"})",
       R"([{"op":"remove","path":"/baz"}])", R"({"foo":"bar"})", ""},
      {"A.4 removing an array element", R"({"foo":["bar","qux","baz"]})",
       R"([{"op":"remove","path":"/foo/1"}])", R"({"foo":["bar","baz"]})", ""},
      {"A.5 replacing a value", R"({"baz":"qux","foo":"bar"})",
       R"([{"op":"replace","path":"/baz","value":"boo"}])", R"({"baz":"boo","foo":"bar"})", ""},
      {"A.6 moving a value", R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
       R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
       R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})", ""},
      {"A.7 moving an array element", R"({"foo":["all","grass","cows","eat"]})",
       R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
       R"({"foo":["all","cows","eat","grass"]})", ""},
      {"A.8 testing a value: success", R"({"baz":"qux","foo":["a",2,"c"]})",
       R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
       R"({"baz":"qux","foo":["a",2,"c"]})", ""},
      {"A.9 testing a value: error", R"({"baz":"qux"})",
       R"([{"op":"test","path":"/baz","value":"bar"}])", "",
       "testing value /baz failed: test failed"},
      {"A.10 adding a nested member object", R"({"foo":"bar"})",
       R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
       R"({"foo":"bar","child":{"grandchild":{}}})", ""},
      {"A.11 ignoring unrecognized elements", R"({"foo":"bar"})",
       R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])", R"({"foo":"bar","baz":"qux"})",
       ""},
      {"A.12 adding to a nonexistent target", R"({"foo":"bar"})",
       R"([{"op":"add","path":"/baz/bat","value":"qux"}])", "",
       R"(add operation does not apply: doc is missing path: "/baz/bat": missing value)"},
      // A.13's duplicate "op" cannot survive parsing; the last one wins, as in Go's map decoding,
      // so this is a remove.
      {"A.13 invalid JSON patch document (last op wins)", R"({"baz":1,"foo":"bar"})",
       R"([{"op":"add","path":"/baz","value":"qux","op":"remove"}])", R"({"foo":"bar"})", ""},
      {"A.14 ~ escape ordering", R"({"/":9,"~1":10})",
       R"([{"op":"test","path":"/~01","value":10}])", R"({"/":9,"~1":10})", ""},
      {"A.15 comparing strings and numbers", R"({"/":9,"~1":10})",
       R"([{"op":"test","path":"/~01","value":"10"}])", "",
       "testing value /~01 failed: test failed"},
      {"A.16 adding an array value", R"({"foo":["bar"]})",
       R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
       R"({"foo":["bar",["abc","def"]]})", ""},
  }));
  check_row(row);
}

TEST_CASE("operations behave as evanphx/json-patch v4 applies them", "[json-patch]") {
  const Row row = GENERATE(values<Row>({
      {"add appends with -", R"({"a":[1,2]})", R"([{"op":"add","path":"/a/-","value":3}])",
       R"({"a":[1,2,3]})", ""},
      {"add inserts at the length", R"({"a":[1,2]})", R"([{"op":"add","path":"/a/2","value":3}])",
       R"({"a":[1,2,3]})", ""},
      {"add inserts at 0", R"({"a":[1,2]})", R"([{"op":"add","path":"/a/0","value":0}])",
       R"({"a":[0,1,2]})", ""},
      {"add at -1 appends", R"({"a":[1,2]})", R"([{"op":"add","path":"/a/-1","value":3}])",
       R"({"a":[1,2,3]})", ""},
      {"add at -3 inserts first", R"({"a":[1,2]})", R"([{"op":"add","path":"/a/-3","value":0}])",
       R"({"a":[0,1,2]})", ""},
      {"add replaces an existing member", R"({"a":1})", R"([{"op":"add","path":"/a","value":2}])",
       R"({"a":2})", ""},
      {"add without value adds null", R"({})", R"([{"op":"add","path":"/a"}])", R"({"a":null})",
       ""},
      {"add into a nested array of objects", R"({"a":[{"b":1}]})",
       R"([{"op":"add","path":"/a/0/c","value":2}])", R"({"a":[{"b":1,"c":2}]})", ""},
      {"add the empty member name", R"({"a":{}})", R"([{"op":"add","path":"/a/","value":1}])",
       R"({"a":{"":1}})", ""},
      {"a path without a leading slash addresses the root", R"({"a":{}})",
       R"([{"op":"add","path":"x/b","value":1}])", R"({"a":{},"b":1})", ""},
      {"an index with a plus sign and leading zeros", R"({"a":[1,2,3]})",
       R"([{"op":"remove","path":"/a/+01"}])", R"({"a":[1,3]})", ""},
      {"remove the last element by -1", R"({"a":[1,2,3]})", R"([{"op":"remove","path":"/a/-1"}])",
       R"({"a":[1,2]})", ""},
      {"remove a member holding null", R"({"a":null,"b":1})", R"([{"op":"remove","path":"/a"}])",
       R"({"b":1})", ""},
      {"~1 and ~0 unescape", R"({"a/b":{"m~n":1}})", R"([{"op":"remove","path":"/a~1b/m~0n"}])",
       R"({"a/b":{}})", ""},
      {"an unknown escape stays literal", R"({"~2":1})", R"([{"op":"remove","path":"/~2"}])",
       R"({})", ""},
      {"replace a missing member adds it", R"({"a":1})",
       R"([{"op":"replace","path":"/b","value":2}])", R"({"a":1,"b":2})", ""},
      {"replace an array element by a negative index", R"({"a":[1,2]})",
       R"([{"op":"replace","path":"/a/-2","value":0}])", R"({"a":[0,2]})", ""},
      {"replace the root with an object", R"({"a":1})",
       R"([{"op":"replace","path":"","value":{"b":2}}])", R"({"b":2})", ""},
      {"replace the root with an array", R"({"a":1})",
       R"([{"op":"replace","path":"","value":[1]}])", R"([1])", ""},
      {"replace the root with a scalar is ignored (v4.12.0)", R"({"a":1})",
       R"([{"op":"replace","path":"","value":5}])", R"({"a":1})", ""},
      {"replace the root with null", R"({"a":1})", R"([{"op":"replace","path":"","value":null}])",
       "null", ""},
      {"move within an array forwards", R"({"a":[1,2,3]})",
       R"([{"op":"move","from":"/a/0","path":"/a/-"}])", R"({"a":[2,3,1]})", ""},
      {"move a missing member moves nothing and fails", R"({"a":1})",
       R"([{"op":"move","from":"/b","path":"/c"}])", "",
       "error in move for path: 'b': Unable to remove nonexistent key: b: missing value"},
      {"move to a new member", R"({"a":{"x":1}})", R"([{"op":"move","from":"/a","path":"/b"}])",
       R"({"b":{"x":1}})", ""},
      {"copy deep-copies", R"({"a":{"x":[1]}})",
       R"([{"op":"copy","from":"/a","path":"/b"},{"op":"add","path":"/b/x/-","value":2}])",
       R"({"a":{"x":[1]},"b":{"x":[1,2]}})", ""},
      {"copy from a missing member copies null", R"({"a":1})",
       R"([{"op":"copy","from":"/nope","path":"/b"}])", R"({"a":1,"b":null})", ""},
      {"copy an array element into an array", R"({"a":[1,2]})",
       R"([{"op":"copy","from":"/a/1","path":"/a/0"}])", R"({"a":[2,1,2]})", ""},
      {"test numbers by value", R"({"a":1})", R"([{"op":"test","path":"/a","value":1.0}])",
       R"({"a":1})", ""},
      // evanphx dereferences the nil of a null array element here; compared by value instead.
      {"test objects regardless of member order", R"({"a":{"x":1,"y":[true,null]}})",
       R"([{"op":"test","path":"/a","value":{"y":[true,null],"x":1}}])",
       R"({"a":{"x":1,"y":[true,null]}})", ""},
      {"test a missing member against null", R"({})", R"([{"op":"test","path":"/a","value":null}])",
       R"({})", ""},
      {"test a missing member without a value", R"({})", R"([{"op":"test","path":"/a"}])", R"({})",
       ""},
      {"test a null member against null", R"({"a":null})",
       R"([{"op":"test","path":"/a","value":null}])", R"({"a":null})", ""},
      {"test the whole document by value", R"({"a":[1],"b":2})",
       R"([{"op":"test","path":"","value":{"b":2.0,"a":[1.0]}}])", R"({"a":[1],"b":2})", ""},
      {"operations see earlier results", R"({})",
       R"([{"op":"add","path":"/a","value":{}},{"op":"add","path":"/a/b","value":1},)"
       R"({"op":"test","path":"/a/b","value":1}])",
       R"({"a":{"b":1}})", ""},
      {"an array document", R"([1,2])", R"([{"op":"add","path":"/0","value":0}])", R"([0,1,2])",
       ""},
      {"an empty patch", R"({"a":1})", R"([])", R"({"a":1})", ""},
      {"a null patch body is an empty patch", R"({"a":1})", "null", R"({"a":1})", ""},
  }));
  check_row(row);
}

TEST_CASE("failing operations give evanphx/json-patch v4's texts and a 422", "[json-patch]") {
  const Row row = GENERATE(values<Row>({
      // test
      {"test a different value", R"({"a":{"b":1}})", R"([{"op":"test","path":"/a/b","value":2}])",
       "", "testing value /a/b failed: test failed"},
      {"test a missing member", R"({})", R"([{"op":"test","path":"/a","value":1}])", "",
       "testing value /a failed: test failed"},
      {"test a present member without a value", R"({"a":1})", R"([{"op":"test","path":"/a"}])", "",
       "testing value /a failed: test failed"},
      {"test a member against null", R"({"a":{}})", R"([{"op":"test","path":"/a","value":null}])",
       "", "testing value /a failed: test failed"},
      {"test the whole document", R"({"a":1})", R"([{"op":"test","path":"","value":{}}])", "",
       "testing value  failed: test failed"},
      {"test below a missing member", R"({})", R"([{"op":"test","path":"/a/b","value":1}])", "",
       "test operation does not apply: is missing path: /a/b: missing value"},
      {"test past the end", R"({"a":[1]})", R"([{"op":"test","path":"/a/1","value":1}])", "",
       "error in test for path: '/a/1': Unable to access invalid index: 1: invalid index "
       "referenced"},
      {"test without a path", R"({})", R"([{"op":"test","value":1}])", "",
       "test operation failed to decode path: operation missing path field: missing value"},
      {"test with a numeric path", R"({})", R"([{"op":"test","path":1,"value":1}])", "",
       "test operation failed to decode path: json: cannot unmarshal number into Go value of "
       "type string"},
      {"the first failure stops the patch", R"({"a":1})",
       R"([{"op":"add","path":"/b","value":2},{"op":"test","path":"/a","value":0},)"
       R"({"op":"add","path":"/c","value":3}])",
       "", "testing value /a failed: test failed"},
      // add
      {"add without a path", R"({})", R"([{"op":"add","value":1}])", "",
       "add operation failed to decode path: missing value"},
      {"add with a null path", R"({})", R"([{"op":"add","path":null,"value":1}])", "",
       "add operation failed to decode path: missing value"},
      {"add with an object path", R"({})", R"([{"op":"add","path":{},"value":1}])", "",
       "add operation failed to decode path: missing value"},
      {"add to the root", R"({})", R"([{"op":"add","path":"","value":{"a":1}}])", "",
       R"(add operation does not apply: doc is missing path: "": missing value)"},
      {"add below a scalar", R"({"a":1})", R"([{"op":"add","path":"/a/b","value":1}])", "",
       R"(add operation does not apply: doc is missing path: "/a/b": missing value)"},
      {"add below null", R"({"a":null})", R"([{"op":"add","path":"/a/b","value":1}])", "",
       R"(add operation does not apply: doc is missing path: "/a/b": missing value)"},
      {"add past the end", R"({"a":[1]})", R"([{"op":"add","path":"/a/2","value":1}])", "",
       "error in add for path: '/a/2': Unable to access invalid index: 2: invalid index "
       "referenced"},
      {"add before the start", R"({"a":[1]})", R"([{"op":"add","path":"/a/-3","value":1}])", "",
       "error in add for path: '/a/-3': Unable to access invalid index: -3: invalid index "
       "referenced"},
      {"add at a word index", R"({"a":[1]})", R"([{"op":"add","path":"/a/x","value":1}])", "",
       "error in add for path: '/a/x': value was not a proper array index: 'x': strconv.Atoi: "
       "parsing \"x\": invalid syntax"},
      {"add at a huge index", R"({"a":[1]})",
       R"([{"op":"add","path":"/a/99999999999999999999","value":1}])", "",
       "error in add for path: '/a/99999999999999999999': value was not a proper array index: "
       "'99999999999999999999': strconv.Atoi: parsing \"99999999999999999999\": value out of "
       "range"},
      {"add at an empty index", R"({"a":[1]})", R"([{"op":"add","path":"/a/","value":1}])", "",
       "error in add for path: '/a/': value was not a proper array index: '': strconv.Atoi: "
       "parsing \"\": invalid syntax"},
      {"add below a bad intermediate index", R"({"a":[{}]})",
       R"([{"op":"add","path":"/a/-/b","value":1}])", "",
       R"(add operation does not apply: doc is missing path: "/a/-/b": missing value)"},
      // remove
      {"remove a missing member", R"({"a":1})", R"([{"op":"remove","path":"/b"}])", "",
       "error in remove for path: '/b': Unable to remove nonexistent key: b: missing value"},
      {"remove an escaped missing member", R"({})", R"([{"op":"remove","path":"/x~1y"}])", "",
       "error in remove for path: '/x~1y': Unable to remove nonexistent key: x/y: missing value"},
      {"remove past the end", R"({"a":[1]})", R"([{"op":"remove","path":"/a/1"}])", "",
       "error in remove for path: '/a/1': Unable to access invalid index: 1: invalid index "
       "referenced"},
      {"remove before the start", R"({"a":[1]})", R"([{"op":"remove","path":"/a/-2"}])", "",
       "error in remove for path: '/a/-2': Unable to access invalid index: -2: invalid index "
       "referenced"},
      {"remove -", R"({"a":[1]})", R"([{"op":"remove","path":"/a/-"}])", "",
       "error in remove for path: '/a/-': strconv.Atoi: parsing \"-\": invalid syntax"},
      {"remove below a missing member", R"({})", R"([{"op":"remove","path":"/a/b"}])", "",
       R"(remove operation does not apply: doc is missing path: "/a/b": missing value)"},
      {"remove the root", R"({})", R"([{"op":"remove","path":""}])", "",
       R"(remove operation does not apply: doc is missing path: "": missing value)"},
      {"remove without a path", R"({})", R"([{"op":"remove"}])", "",
       "remove operation failed to decode path: missing value"},
      // replace
      {"replace below a missing member", R"({})", R"([{"op":"replace","path":"/a/b","value":1}])",
       "", "replace operation does not apply: doc is missing path: /a/b: missing value"},
      {"replace past the end", R"({"a":[1]})", R"([{"op":"replace","path":"/a/1","value":1}])", "",
       "replace operation does not apply: doc is missing key: /a/1: missing value"},
      {"replace -", R"({"a":[1]})", R"([{"op":"replace","path":"/a/-","value":1}])", "",
       "replace operation does not apply: doc is missing key: /a/-: missing value"},
      {"replace without a path", R"({})", R"([{"op":"replace","value":1}])", "",
       "replace operation failed to decode path: operation missing path field: missing value"},
      {"replace with a boolean path", R"({})", R"([{"op":"replace","path":true,"value":1}])", "",
       "replace operation failed to decode path: json: cannot unmarshal bool into Go value of "
       "type string"},
      // move
      {"move without from", R"({})", R"([{"op":"move","path":"/a"}])", "",
       "move operation failed to decode from: operation, missing from field: missing value"},
      {"move with an array from", R"({})", R"([{"op":"move","from":[],"path":"/a"}])", "",
       "move operation failed to decode from: json: cannot unmarshal array into Go value of type "
       "string"},
      {"move from below a missing member", R"({})", R"([{"op":"move","from":"/a/b","path":"/c"}])",
       "", "move operation does not apply: doc is missing from path: /a/b: missing value"},
      {"move from past the end", R"({"a":[1]})", R"([{"op":"move","from":"/a/5","path":"/b"}])", "",
       "error in move for path: '5': Unable to access invalid index: 5: invalid index "
       "referenced"},
      {"move without path", R"({"a":1})", R"([{"op":"move","from":"/a"}])", "",
       "move operation failed to decode path: operation missing path field: missing value"},
      {"move into its own child", R"({"a":{"b":1}})",
       R"([{"op":"move","from":"/a","path":"/a/c"}])", "",
       "move operation does not apply: doc is missing destination path: /a/c: missing value"},
      {"move to past the end", R"({"a":[1],"b":2})", R"([{"op":"move","from":"/b","path":"/a/5"}])",
       "",
       "error in move for path: '/a/5': Unable to access invalid index: 5: invalid index "
       "referenced"},
      // copy
      {"copy without from", R"({})", R"([{"op":"copy","path":"/a"}])", "",
       "copy operation failed to decode from: operation, missing from field: missing value"},
      {"copy from below a missing member", R"({})", R"([{"op":"copy","from":"/a/b","path":"/c"}])",
       "", "copy operation does not apply: doc is missing from path: /a/b: missing value"},
      {"copy from past the end", R"({"a":[]})", R"([{"op":"copy","from":"/a/0","path":"/b"}])", "",
       "error in copy for from: '/a/0': Unable to access invalid index: 0: invalid index "
       "referenced"},
      {"copy without path", R"({"a":1})", R"([{"op":"copy","from":"/a"}])", "",
       "copy operation failed to decode path: missing value"},
      {"copy with a numeric path", R"({"a":1})", R"([{"op":"copy","from":"/a","path":7}])", "",
       "copy operation failed to decode path: missing value"},
      {"copy to below a missing member", R"({"a":1})",
       R"([{"op":"copy","from":"/a","path":"/b/c"}])", "",
       "copy operation does not apply: doc is missing destination path: /b/c: missing value"},
      {"copy to past the end", R"({"a":1,"b":[]})", R"([{"op":"copy","from":"/a","path":"/b/1"}])",
       "",
       "error while adding value during copy: Unable to access invalid index: 1: invalid index "
       "referenced"},
      // kinds
      {"an unknown op", R"({})", R"([{"op":"patch","path":"/a"}])", "", "Unexpected kind: patch"},
      {"op names are case-sensitive", R"({})", R"([{"op":"ADD","path":"/a","value":1}])", "",
       "Unexpected kind: ADD"},
      {"a missing op", R"({})", R"([{"path":"/a","value":1}])", "", "Unexpected kind: unknown"},
      {"a numeric op", R"({})", R"([{"op":1,"path":"/a"}])", "", "Unexpected kind: unknown"},
      {"a null operation", R"({})", R"([null])", "", "Unexpected kind: unknown"},
      // documents
      {"a scalar document", R"(5)", R"([])", "",
       "json: cannot unmarshal number into Go value of type jsonpatch.partialDoc"},
  }));
  check_row(row);
}

TEST_CASE("a body that is not an array of operations is a 400 with Go's decode error",
          "[json-patch]") {
  struct Body {
    std::string patch;
    std::string message;
  };
  const Body body = GENERATE(values<Body>({
      {R"({"op":"add","path":"/a","value":1})",
       "json: cannot unmarshal object into Go value of type jsonpatch.Patch"},
      {R"("add")", "json: cannot unmarshal string into Go value of type jsonpatch.Patch"},
      {R"(1)", "json: cannot unmarshal number into Go value of type jsonpatch.Patch"},
      {R"(true)", "json: cannot unmarshal bool into Go value of type jsonpatch.Patch"},
      {R"([{"op":"test","path":"/a","value":1},5])",
       "json: cannot unmarshal number into Go value of type jsonpatch.Operation"},
      {R"([[]])", "json: cannot unmarshal array into Go value of type jsonpatch.Operation"},
      {R"(["add"])", "json: cannot unmarshal string into Go value of type jsonpatch.Operation"},
  }));
  CAPTURE(body.patch);
  // The body is checked before the document (a scalar here, itself an error).
  const PatchError e = error_of(json(5), json::parse(body.patch));
  CHECK(e.code == 400);
  CHECK(e.reason == "BadRequest");
  CHECK(e.message == body.message);
  CHECK(e.detail == body.message);
}

TEST_CASE("more than 10000 operations is a 413", "[json-patch]") {
  const json op = {{"op", "test"}, {"path", "/a"}, {"value", 1}};
  json patch = json::array();
  for (size_t i = 0; i < kMaxJsonPatchOperations; ++i) {
    patch.push_back(op);
  }
  const json doc = {{"a", 1}};
  SECTION("exactly the limit applies") {
    const auto out = apply_json_patch(doc, patch);
    REQUIRE(std::holds_alternative<json>(out));
    CHECK(std::get<json>(out) == doc);
  }
  SECTION("one more is rejected before any operation runs") {
    patch.push_back({{"op", "bogus"}});
    const PatchError e = error_of(doc, patch);
    CHECK(e.code == 413);
    CHECK(e.reason == "RequestEntityTooLarge");
    CHECK(e.message ==
          "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got "
          "10001");
    CHECK(e.detail == "The allowed maximum operations in a JSON patch is 10000, got 10001");
  }
}

TEST_CASE("copies may add at most 3 MiB of JSON in total", "[json-patch]") {
  // A string of 2^20 bytes encodes in 2^20 + 2 bytes; the third copy passes 3 * 2^20.
  const json doc = {{"big", std::string(1 << 20, 'x')}};
  const auto copies = [](int n) {
    json patch = json::array();
    for (int i = 0; i < n; ++i) {
      patch.push_back({{"op", "copy"}, {"from", "/big"}, {"path", "/c" + std::to_string(i)}});
    }
    return patch;
  };
  REQUIRE(std::holds_alternative<json>(apply_json_patch(doc, copies(2))));
  const PatchError e = error_of(doc, copies(3));
  CHECK(e.code == 422);
  CHECK(e.detail ==
        "Unable to complete the copy, the accumulated size increase of copy is 3145734, "
        "exceeding the limit 3145728");

  SECTION("sizes follow Go's encoder, which escapes <, > and & as \\u003c") {
    // 3 * (2 + 6 * 174763) = 3145740 > 3145728, while the raw bytes would fit.
    const json html = {{"big", std::string(174763, '<')}};
    REQUIRE(std::holds_alternative<json>(apply_json_patch(html, copies(2))));
    const PatchError h = error_of(html, copies(3));
    CHECK(h.detail ==
          "Unable to complete the copy, the accumulated size increase of copy is 3145740, "
          "exceeding the limit 3145728");
  }
}

TEST_CASE("the input document is left unchanged", "[json-patch]") {
  const json doc = {{"a", json::array({1, 2})}, {"b", {{"c", 1}}}};
  const json before = doc;
  const json patch = json::parse(R"([{"op":"remove","path":"/a/0"},{"op":"add","path":"/b/d",
    "value":2},{"op":"test","path":"/b/c","value":9}])");
  REQUIRE(std::holds_alternative<PatchError>(apply_json_patch(doc, patch)));
  CHECK(doc == before);
}

TEST_CASE("fieldValidation=Strict|Warn pre-decodes the body like kube-apiserver",
          "[json-patch][strict]") {
  SECTION("unknown members are reported with their index, case-sensitively") {
    const auto out = json_patch_strict_errors(json::parse(
        R"([{"op":"add","path":"/a","valu":1,"Op":"x"},null,{"op":"test","path":"/a","value":1},)"
        R"({"op":"remove","path":"/a","valu":2,"a\"b":0}])"));
    REQUIRE(std::holds_alternative<std::vector<std::string>>(out));
    CHECK(std::get<std::vector<std::string>>(out) ==
          std::vector<std::string>{
              R"(json patch unknown field "[0].Op")", R"(json patch unknown field "[0].valu")",
              R"(json patch unknown field "[3].a\"b")", R"(json patch unknown field "[3].valu")"});
  }
  SECTION("a clean patch and a null body have no problems") {
    for (const char* body : {R"([{"op":"move","from":"/a","path":"/b","value":{"x":[1]}}])", "null",
                             "[]", R"([{"op":null,"path":null,"from":null}])"}) {
      CAPTURE(body);
      const auto out = json_patch_strict_errors(json::parse(body));
      REQUIRE(std::holds_alternative<std::vector<std::string>>(out));
      CHECK(std::get<std::vector<std::string>>(out).empty());
    }
  }
  SECTION("type errors are a 400 that wins over unknown fields") {
    struct Body {
      std::string patch;
      std::string message;
    };
    const Body body = GENERATE(values<Body>({
        {R"({})",
         "error decoding patch: json: cannot unmarshal object into Go value of type "
         "[]handlers.jsonPatchOp"},
        {R"([{"x":1},3])",
         "error decoding patch: json: cannot unmarshal number into Go value of "
         "type handlers.jsonPatchOp"},
        {R"([{"x":1,"op":5}])",
         "error decoding patch: json: cannot unmarshal number into Go "
         "struct field jsonPatchOp.op of type string"},
        {R"([{"path":{}}])",
         "error decoding patch: json: cannot unmarshal object into Go struct "
         "field jsonPatchOp.path of type string"},
        {R"([{"from":[]}])",
         "error decoding patch: json: cannot unmarshal array into Go struct "
         "field jsonPatchOp.from of type string"},
    }));
    CAPTURE(body.patch);
    const auto out = json_patch_strict_errors(json::parse(body.patch));
    REQUIRE(std::holds_alternative<PatchError>(out));
    const auto& e = std::get<PatchError>(out);
    CHECK(e.code == 400);
    CHECK(e.reason == "BadRequest");
    CHECK(e.message == body.message);
  }
  SECTION("at most 100 problems are kept") {
    json patch = json::array();
    for (int i = 0; i < 150; ++i) {
      patch.push_back({{"op", "test"}, {"path", "/a"}, {"extra", i}});
    }
    const auto out = json_patch_strict_errors(patch);
    REQUIRE(std::holds_alternative<std::vector<std::string>>(out));
    const auto& problems = std::get<std::vector<std::string>>(out);
    REQUIRE(problems.size() == 100);
    CHECK(problems.back() == R"(json patch unknown field "[99].extra")");
  }
}
