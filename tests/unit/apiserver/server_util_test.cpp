#include <boost/beast/zlib/inflate_stream.hpp>
#include <catch2/catch.hpp>

#include "apiserver/apiserver.h"
#include "apiserver/http.h"
#include "server/gzip.h"

using namespace std::chrono_literals;

TEST_CASE("gzip produces a member any gzip reader takes", "[gzip]") {
  using apiserver::server::gzip;
  std::string data;
  for (int i = 0; i < 5000; ++i) {
    data += "{\"name\": \"configmap-" + std::to_string(i) + "\"},";
  }
  std::string packed = gzip(data);
  REQUIRE(packed.size() > 18);
  CHECK(packed.size() < data.size() / 4);
  CHECK(packed.substr(0, 3) == std::string("\x1f\x8b\x08", 3));
  // Inflate the raw deflate body and compare; then check the trailer's size field.
  boost::beast::zlib::inflate_stream inflater;
  inflater.reset(15);
  std::string out(data.size() + 64, '\0');
  boost::beast::zlib::z_params params;
  params.next_in = packed.data() + 10;
  params.avail_in = packed.size() - 18;
  params.next_out = out.data();
  params.avail_out = out.size();
  boost::system::error_code ec;
  inflater.write(params, boost::beast::zlib::Flush::sync, ec);
  out.resize(params.total_out);
  CHECK(out == data);
  auto byte = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<unsigned char>(packed[i]));
  };
  size_t n = packed.size();
  CHECK((byte(n - 4) | byte(n - 3) << 8 | byte(n - 2) << 16 | byte(n - 1) << 24) == data.size());
  // CRC-32 of "123456789" is the standard check value 0xCBF43926.
  std::string check = gzip("123456789");
  size_t m = check.size();
  auto cbyte = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<unsigned char>(check[i]));
  };
  CHECK((cbyte(m - 8) | cbyte(m - 7) << 8 | cbyte(m - 6) << 16 | cbyte(m - 5) << 24) ==
        0xCBF43926u);
}

TEST_CASE("Accept-Encoding decides gzip", "[gzip]") {
  using apiserver::server::accepts_gzip;
  CHECK(accepts_gzip("gzip"));
  CHECK(accepts_gzip("deflate, GZIP;q=0.5"));
  CHECK_FALSE(accepts_gzip("gzip;q=0"));
  CHECK_FALSE(accepts_gzip("identity"));
  CHECK_FALSE(accepts_gzip(""));
  CHECK_FALSE(accepts_gzip("x-gzip2"));
}

TEST_CASE("token auth files read as kube-apiserver reads them", "[authn]") {
  auto file = apiserver::parse_token_auth_file(
      "abc,alice,1001,\"dev,ops\"\n\nxyz,bob,1002\n,nobody,1003\nabc,carol,1004,admins\n",
      "tokens.csv");
  REQUIRE(file);
  auto& tokens = file->tokens;
  const auto& warnings = file->warnings;
  CHECK(tokens.size() == 2);
  CHECK(tokens["abc"].first == "carol");  // a duplicate: the last one wins
  CHECK(tokens["abc"].second == std::vector<std::string>{"admins"});
  CHECK(tokens["xyz"].first == "bob");
  CHECK(tokens["xyz"].second.empty());
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0] == "empty token has been found in token file 'tokens.csv', record number '3'");
  CHECK(warnings[1] ==
        "duplicate token has been found in token file 'tokens.csv', record number '4'");

  auto short_record = apiserver::parse_token_auth_file("abc,alice\n", "t.csv");
  REQUIRE_FALSE(short_record);
  CHECK(short_record.error() ==
        "token file 't.csv' must have at least 3 columns (token, user name, user uid), found 2");
  auto bare_quote = apiserver::parse_token_auth_file("ab\"c,alice,1\n", "t.csv");
  REQUIRE_FALSE(bare_quote);
  CHECK(bare_quote.error() ==
        "token file 't.csv': parse error on line 1: bare \" in non-quoted-field");
}
