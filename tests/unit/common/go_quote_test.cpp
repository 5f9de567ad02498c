// Go's quoting: every row is what Go 1.22 prints for fmt.Sprintf("%q", s) (go_quote) or inside
// time.ParseDuration's error (go_time_quote).
#include <catch2/catch.hpp>

#include <string>

#include "common/go_quote.h"

using common::decode_rune;
using common::go_quote;
using common::go_time_quote;

TEST_CASE("go_quote writes what strconv.Quote writes", "[go_quote]") {
  const auto [text, quoted] = GENERATE(table<std::string, std::string>({
      {"", R"("")"},
      {"plain text", R"("plain text")"},
      {"say \"hi\"", R"("say \"hi\"")"},
      {"back\\slash", R"("back\\slash")"},
      {"\a\b\f\n\r\t\v", R"("\a\b\f\n\r\t\v")"},
      {std::string("nul\0", 4), R"("nul\x00")"},
      {"\x1b[0m", R"("\x1b[0m")"},
      {"del\x7f", R"("del\x7f")"},
      {"caf\xc3\xa9 \xe2\x98\xba", "\"caf\xc3\xa9 \xe2\x98\xba\""},
      {"\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""},
      {"bad \xff byte", R"("bad \xff byte")"},
      {"cut \xe2\x98", R"("cut \xe2\x98")"},
      {"overlong \xc0\xaf", R"("overlong \xc0\xaf")"},
      {"surrogate \xed\xa0\x80", R"("surrogate \xed\xa0\x80")"},
      {"\xc2\xa0nbsp", R"("\u00a0nbsp")"},
      {"soft\xc2\xadhyphen", R"("soft\u00adhyphen")"},
      {"zero\xe2\x80\x8bwidth", R"("zero\u200bwidth")"},
      {"line\xe2\x80\xa8sep", R"("line\u2028sep")"},
      {"bom\xef\xbb\xbf", R"("bom\ufeff")"},
      {"private\xf3\xb0\x80\x80", R"("private\U000f0000")"},
      {"\xef\xbf\xbd", "\"\xef\xbf\xbd\""},
  }));
  CAPTURE(text);
  CHECK(go_quote(text) == quoted);
}

TEST_CASE("go_time_quote writes what the time package's errors write", "[go_quote]") {
  const auto [text, quoted] = GENERATE(table<std::string, std::string>({
      {"10x", R"("10x")"},
      {"say \"hi\"\\", R"("say \"hi\"\\")"},
      {"1\xc2\xb5s", R"("1\xc2\xb5s")"},
      {"tab\there", R"("tab\x09here")"},
      {"del\x7f", "\"del\x7f\""},
      {"bad \xff", R"("bad \xff")"},
      {"\xef\xbf\xbd", R"("\xef\xbf\xbd")"},
  }));
  CAPTURE(text);
  CHECK(go_time_quote(text) == quoted);
}

TEST_CASE("decode_rune reads UTF-8 as Go's range loop does", "[go_quote]") {
  const auto [text, rune, width] = GENERATE(table<std::string, char32_t, std::size_t>({
      {"a", U'a', 1},
      {"\xc3\xa9", U'\u00e9', 2},
      {"\xe2\x98\xba", U'\u263a', 3},
      {"\xf0\x9f\x98\x80", U'\U0001f600', 4},
      {"\xff", 0xFFFD, 1},
      {"\xe2\x98", 0xFFFD, 1},
      {"\xc0\xaf", 0xFFFD, 1},
      {"\xed\xa0\x80", 0xFFFD, 1},
      {"\xf4\x90\x80\x80", 0xFFFD, 1},
  }));
  CAPTURE(text);
  std::size_t decoded_width = 0;
  CHECK(decode_rune(text, 0, decoded_width) == rune);
  CHECK(decoded_width == width);
}

TEST_CASE("c_quote escapes only quotes, backslashes and control bytes", "[go_quote]") {
  const auto [text, quoted] = GENERATE(table<std::string, std::string>({
      {"", R"("")"},
      {"say \"hi\"", R"("say \"hi\"")"},
      {"back\\slash", R"("back\\slash")"},
      {"a\nb\tc\rd", R"("a\nb\tc\rd")"},
      {"\a\b\f\v", R"("\x07\x08\x0c\x0b")"},
      {std::string("nul\0", 4), R"("nul\x00")"},
      {"del\x7f", R"("del\x7f")"},
      {"caf\xc3\xa9 \xff", "\"caf\xc3\xa9 \xff\""},
  }));
  CAPTURE(text);
  CHECK(common::c_quote(text) == quoted);
}
