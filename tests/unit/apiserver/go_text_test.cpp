// Runes counted and cut as Go does (utf8.RuneCountInString, string([]rune(s)[:n])): what CRD
// maxLength/minLength and the warning recorder's limits count.
#include "registry/go_text.h"

#include <catch2/catch.hpp>

#include <string>

using apiserver::registry::first_runes;
using apiserver::registry::rune_count;

TEST_CASE("runes count as Go counts them, each invalid byte as one", "[go-text]") {
  auto [text, runes] = GENERATE(table<std::string, std::size_t>({
      {"", 0},
      {"abc", 3},
      {"h\xc3\xa9llo", 5},      // é
      {"\xe2\x82\xac", 1},      // €
      {"\xf0\x9f\x98\x80", 1},  // an emoji, 4 bytes
      {"\xff", 1},              // not UTF-8
      {"\x80\x80", 2},          // lone continuation bytes
      {"\xe2\x82", 2},          // a truncated sequence: one rune a byte
      {"a\xe2\x82z", 4},        // the same inside a text
      {"\xc0\xaf", 2},          // an overlong form
      {"\xed\xa0\x80", 3},      // a surrogate
  }));
  CAPTURE(text);
  CHECK(rune_count(text) == runes);
}

TEST_CASE("the first runes of a text write each invalid byte as U+FFFD", "[go-text]") {
  CHECK(first_runes("abcdef", 3) == "abc");
  CHECK(first_runes("ab", 3) == "ab");
  CHECK(first_runes("\xe2\x82\xac\xe2\x82\xac", 1) == "\xe2\x82\xac");
  CHECK(first_runes("\xffz", 2) == "\xef\xbf\xbdz");
  CHECK(first_runes("a\xe2\x82z", 3) == "a\xef\xbf\xbd\xef\xbf\xbd");
}
