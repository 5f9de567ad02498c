#include "console/model/object_diff.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

using console::model::diff_lines;
using console::model::diff_objects;
using console::model::DiffOptions;
using console::model::LineTag;
using console::model::TextDiff;
using nlohmann::json;

namespace {

// The diff as a unified diff body: "@@ -1,3 +1,3 @@" headers, then " same", "-removed", "+added".
std::string unified(const TextDiff& diff) {
  std::string out;
  for (const auto& hunk : diff.hunks) {
    out += "@@ -" + std::to_string(hunk.old_start) + "," + std::to_string(hunk.old_count) + " +" +
           std::to_string(hunk.new_start) + "," + std::to_string(hunk.new_count) + " @@\n";
    for (const auto& line : hunk.lines) {
      out += line.tag == LineTag::Same ? ' ' : (line.tag == LineTag::Added ? '+' : '-');
      out += line.text + "\n";
    }
  }
  return out;
}

DiffOptions context(size_t lines) {
  DiffOptions options;
  options.context = lines;
  return options;
}

// "a b c" -> "a\nb\nc\n"
std::string lines(const std::string& words) {
  std::string out;
  for (const char c : words) {
    out += c == ' ' ? '\n' : c;
  }
  return words.empty() ? out : out + "\n";
}

size_t lcs_length(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::vector<size_t>> table(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      table[i][j] = a[i - 1] == b[j - 1] ? table[i - 1][j - 1] + 1
                                         : std::max(table[i - 1][j], table[i][j - 1]);
    }
  }
  return table[a.size()][b.size()];
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    out += p + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("line diffs come back as unified hunks", "[console][model][diff]") {
  struct Row {
    std::string name;
    std::string before;
    std::string after;
    size_t context;
    std::string expected;
  };
  const auto row = GENERATE_REF(values<Row>({
      {"equal texts have no hunks", lines("a b c"), lines("a b c"), 3, ""},
      {"both empty", "", "", 3, ""},
      {"one changed line with context", lines("a b c d e"), lines("a b X d e"), 1,
       "@@ -2,3 +2,3 @@\n b\n-c\n+X\n d\n"},
      {"context is cut at the edges", lines("a b c"), lines("X b c"), 3,
       "@@ -1,3 +1,3 @@\n-a\n+X\n b\n c\n"},
      {"no context", lines("a b c"), lines("a X c"), 0, "@@ -2,1 +2,1 @@\n-b\n+X\n"},
      {"an insertion at the start", lines("b c"), lines("a b c"), 1, "@@ -1,1 +1,2 @@\n+a\n b\n"},
      {"an insertion with no context names the line before", lines("a b"), lines("a X b"), 0,
       "@@ -1,0 +2,1 @@\n+X\n"},
      {"a removal at the end", lines("a b c"), lines("a b"), 1, "@@ -2,2 +2,1 @@\n b\n-c\n"},
      {"from nothing", "", lines("a b"), 3, "@@ -0,0 +1,2 @@\n+a\n+b\n"},
      {"to nothing", lines("a b"), "", 3, "@@ -1,2 +0,0 @@\n-a\n-b\n"},
      {"changes close together share a hunk", lines("a b c d e f"), lines("a X c d Y f"), 1,
       "@@ -1,6 +1,6 @@\n a\n-b\n+X\n c\n d\n-e\n+Y\n f\n"},
      {"changes far apart get their own hunks", lines("a b c d e f g h"), lines("a X c d e f Y h"),
       1, "@@ -1,3 +1,3 @@\n a\n-b\n+X\n c\n@@ -6,3 +6,3 @@\n f\n-g\n+Y\n h\n"},
      {"unlimited context is one hunk of everything", lines("a b c d e f g h"),
       lines("a X c d e f Y h"), SIZE_MAX,
       "@@ -1,8 +1,8 @@\n a\n-b\n+X\n c\n d\n e\n f\n-g\n+Y\n h\n"},
      {"a missing final newline is not a line", "a\nb", "a\nb\n", 3, ""},
      {"empty lines count", "a\n\nb\n", "a\nb\n", 3, "@@ -1,3 +1,2 @@\n a\n-\n b\n"},
      {"repeated lines keep the common ones", lines("x y x y x"), lines("y x y"), 0,
       "@@ -1,1 +0,0 @@\n-x\n@@ -5,1 +3,0 @@\n-x\n"},
  }));
  CAPTURE(row.name);
  CHECK(unified(diff_lines(row.before, row.after, context(row.context))) == row.expected);
}

TEST_CASE("diffs count what they add and remove", "[console][model][diff]") {
  const TextDiff diff = diff_lines(lines("a b c d"), lines("a X Y d e"));
  CHECK(diff.removed == 2);
  CHECK(diff.added == 3);
  CHECK_FALSE(diff.approximate);
  REQUIRE(diff.hunks.size() == 1);
  const auto& first = diff.hunks[0].lines[0];
  CHECK(first.tag == LineTag::Same);
  CHECK(first.old_line == 1);
  CHECK(first.new_line == 1);
  const auto& removed = diff.hunks[0].lines[1];
  CHECK(removed.tag == LineTag::Removed);
  CHECK(removed.old_line == 2);
  CHECK(removed.new_line == 0);
  const auto& added = diff.hunks[0].lines.back();
  CHECK(added.tag == LineTag::Added);
  CHECK(added.text == "e");
  CHECK(added.old_line == 0);
  CHECK(added.new_line == 5);
}

TEST_CASE("the edit script is a shortest one and rebuilds both texts", "[console][model][diff]") {
  std::mt19937 random(12345);
  for (int round = 0; round < 300; ++round) {
    // Few distinct lines, so that there are many ways to line the texts up.
    std::uniform_int_distribution<int> length(0, 14);
    std::uniform_int_distribution<int> letter(0, 3);
    std::vector<std::string> a(static_cast<size_t>(length(random)));
    std::vector<std::string> b(static_cast<size_t>(length(random)));
    for (auto& line : a) {
      line = std::string(1, static_cast<char>('a' + letter(random)));
    }
    for (auto& line : b) {
      line = std::string(1, static_cast<char>('a' + letter(random)));
    }
    CAPTURE(joined(a), joined(b));
    const TextDiff diff = diff_lines(joined(a), joined(b), context(SIZE_MAX));
    const size_t common = lcs_length(a, b);
    CHECK(diff.removed == a.size() - common);
    CHECK(diff.added == b.size() - common);

    std::vector<std::string> old_side;
    std::vector<std::string> new_side;
    for (const auto& hunk : diff.hunks) {
      for (const auto& line : hunk.lines) {
        if (line.tag != LineTag::Added) {
          old_side.push_back(line.text);
        }
        if (line.tag != LineTag::Removed) {
          new_side.push_back(line.text);
        }
      }
    }
    if (a != b) {
      CHECK(old_side == a);
      CHECK(new_side == b);
    } else {
      CHECK(diff.hunks.empty());
    }
  }
}

TEST_CASE("the classic example needs five edits", "[console][model][diff]") {
  const TextDiff diff = diff_lines(lines("a b c a b b a"), lines("c b a b a c"));
  CHECK(diff.removed + diff.added == 5);
}

TEST_CASE("past the edit bound the middle is replaced whole", "[console][model][diff]") {
  DiffOptions options;
  options.context = 1;
  options.max_edits = 3;
  const TextDiff diff = diff_lines(lines("head a b c d tail"), lines("head w x y z tail"), options);
  CHECK(diff.approximate);
  CHECK(diff.removed == 4);
  CHECK(diff.added == 4);
  CHECK(unified(diff) == "@@ -1,6 +1,6 @@\n head\n-a\n-b\n-c\n-d\n+w\n+x\n+y\n+z\n tail\n");

  SECTION("within the bound the same texts diff exactly") {
    options.max_edits = 8;
    CHECK_FALSE(
        diff_lines(lines("head a b c d tail"), lines("head w x y z tail"), options).approximate);
  }
  SECTION("a bound of zero still reports equal texts as equal") {
    options.max_edits = 0;
    const TextDiff same = diff_lines(lines("a b"), lines("a b"), options);
    CHECK_FALSE(same.approximate);
    CHECK(same.hunks.empty());
  }
}

TEST_CASE("big inputs with a few changes diff quickly and exactly", "[console][model][diff]") {
  std::vector<std::string> a;
  for (int i = 0; i < 20000; ++i) {
    a.push_back("line " + std::to_string(i));
  }
  std::vector<std::string> b = a;
  b[100] = "changed";
  b.erase(b.begin() + 5000);
  b.insert(b.begin() + 15000, "inserted");
  const TextDiff diff = diff_lines(joined(a), joined(b), context(0));
  CHECK_FALSE(diff.approximate);
  CHECK(diff.removed == 2);
  CHECK(diff.added == 2);
  CHECK(diff.hunks.size() == 3);
}

TEST_CASE("object versions diff by their YAML, managedFields folded", "[console][model][diff]") {
  const json before = json::parse(R"({
    "apiVersion": "v1", "kind": "ConfigMap",
    "metadata": {"name": "cm", "resourceVersion": "5",
                 "managedFields": [{"manager": "a", "time": "2024-06-01T10:00:00Z"}]},
    "data": {"color": "blue", "size": "L"}
  })");
  json after = before;
  after["metadata"]["resourceVersion"] = "6";
  after["metadata"]["managedFields"][0]["time"] = "2024-06-01T11:00:00Z";
  after["data"]["color"] = "green";
  CHECK(unified(diff_objects(before, after, context(0))) ==
        "@@ -3,1 +3,1 @@\n-  color: blue\n+  color: green\n"
        "@@ -9,1 +9,1 @@\n-  resourceVersion: \"5\"\n+  resourceVersion: \"6\"\n");
}
