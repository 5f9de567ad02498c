// What the server layer parses from a request before any handler: escapes and the query, with
// hostile inputs that must be refused without throwing. (Go durations, ?timeout=: common's
// go_numbers_test.)
#include <catch2/catch.hpp>
#include <string>

#include "apiserver/http.h"

TEST_CASE("percent escapes decode by hand, strictly for client input", "[http]") {
  using apiserver::http::percent_decode;
  using apiserver::http::unescape;
  CHECK(unescape("%41%62%2f%2F", false) == "Ab//");
  CHECK(unescape("a+b", true) == "a b");
  CHECK(unescape("a+b", false) == "a+b");
  CHECK(unescape("%e7%a7%92", false) == "\xe7\xa7\x92");
  CHECK(unescape("%00", false) == std::string(1, '\0'));
  CHECK(unescape("", false) == "");
  CHECK_FALSE(unescape("%", false));
  CHECK_FALSE(unescape("%4", false));
  CHECK_FALSE(unescape("abc%4", false));
  CHECK_FALSE(unescape("%zz", false));
  CHECK_FALSE(unescape("%+1", true));
  CHECK_FALSE(unescape("%\xe7\xa7", false));
  CHECK(percent_decode("%zz%41%", false) == "%zzA%");
  const std::string many(100000, '%');
  CHECK_FALSE(unescape(many, false));
  CHECK(percent_decode(many, false) == many);
}

TEST_CASE("queries split as Go's url.ParseQuery splits them", "[http]") {
  using apiserver::http::parse_query;
  auto q = parse_query("a=1&b=x%20y&a=2&c&d=&=e&&f=g+h");
  CHECK(q["a"] == std::vector<std::string>{"1", "2"});
  CHECK(q["b"] == std::vector<std::string>{"x y"});
  CHECK(q["c"] == std::vector<std::string>{""});
  CHECK(q["d"] == std::vector<std::string>{""});
  CHECK(q[""] == std::vector<std::string>{"e"});
  CHECK(q["f"] == std::vector<std::string>{"g h"});
  CHECK(q.size() == 6);
  // A pair with a malformed escape or a semicolon is dropped; the others stay.
  auto dropped = parse_query("bad=%zz&ok=1&x;y=1&%g=2&timeout=1%");
  CHECK(dropped.size() == 1);
  CHECK(dropped["ok"] == std::vector<std::string>{"1"});
  CHECK(parse_query("").empty());
  CHECK(parse_query("&&&").empty());
}
