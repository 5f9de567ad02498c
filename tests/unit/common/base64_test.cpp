// Base64: the encoders against RFC 4648's vectors, and each decoder's acceptance and error
// offsets (Go's offsets are those of Go 1.22's encoding/base64).
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "common/base64.h"

using common::base64_decode;
using common::base64_decode_lenient;
using common::base64_encode;
using common::base64url_encode_raw;
using common::go_base64_decode;
using common::GoBase64;

TEST_CASE("encoding follows RFC 4648's test vectors", "[base64]") {
  const auto [bytes, standard, url_raw] = GENERATE(table<std::string, std::string, std::string>({
      {"", "", ""},
      {"f", "Zg==", "Zg"},
      {"fo", "Zm8=", "Zm8"},
      {std::string("\0\0", 2), "AAA=", "AAA"},
      {"foo", "Zm9v", "Zm9v"},
      {"foob", "Zm9vYg==", "Zm9vYg"},
      {"fooba", "Zm9vYmE=", "Zm9vYmE"},
      {"foobar", "Zm9vYmFy", "Zm9vYmFy"},
      {std::string("\xfb\xff\xbf"), "+/+/", "-_-_"},
  }));
  CAPTURE(bytes);
  CHECK(base64_encode(bytes) == standard);
  CHECK(base64url_encode_raw(bytes) == url_raw);
}

TEST_CASE("the strict decoder takes only padded standard base64", "[base64]") {
  const auto [text, bytes] = GENERATE(table<const char*, std::optional<std::string>>({
      {"", ""},
      {"Zg", std::nullopt},
      {"Zg==", "f"},
      {"Zg=", std::nullopt},
      {"Zm8=", "fo"},
      {"Z===", std::nullopt},
      {"Zm9vYmFy", "foobar"},
      {"Zg==Zg==", std::nullopt},
      {"+/+/", "\xfb\xff\xbf"},
      {"Zm9v\n", std::nullopt},
      {"Zh==", "f"},  // leftover bits are ignored, as Go's StdEncoding does
      {"Zm 9v", std::nullopt},
      {"-_-_", std::nullopt},
  }));
  CAPTURE(text);
  CHECK(base64_decode(text) == bytes);
}

TEST_CASE("the lenient decoder skips ASCII whitespace anywhere", "[base64]") {
  CHECK(base64_decode_lenient(" Zm9v\r\nYmFy\t") == std::optional<std::string>("foobar"));
  CHECK(base64_decode_lenient("Zg=\v=\f") == std::optional<std::string>("f"));
  CHECK(base64_decode_lenient("  ") == std::optional<std::string>(""));
  CHECK(base64_decode_lenient("Zg") == std::nullopt);
  CHECK(base64_decode_lenient("Zg==Zg==") == std::nullopt);
  CHECK(base64_decode_lenient("Q=QQ") == std::nullopt);
}

TEST_CASE("Go's decoders skip line breaks and report Go's offsets", "[base64]") {
  constexpr auto kStd = GoBase64::Std;
  constexpr auto kUrl = GoBase64::RawUrl;
  const auto [encoding, text, bytes, error] =
      GENERATE_COPY(table<GoBase64, const char*, const char*, const char*>({
          {kStd, "", "", ""},
          {kStd, "aGVsbG8=", "hello", ""},
          {kStd, "aG\r\nVs", "hel", ""},
          {kStd, "aGk=\n", "hi", ""},
          {kStd, "aG\n=\n=", "h", ""},
          {kStd, "abc", "", "illegal base64 data at input byte 0"},
          {kStd, "abcde", "", "illegal base64 data at input byte 4"},
          {kStd, "ab!d", "", "illegal base64 data at input byte 2"},
          {kStd, "a===", "", "illegal base64 data at input byte 1"},
          {kStd, "ab=", "", "illegal base64 data at input byte 3"},
          {kStd, "ab=x", "", "illegal base64 data at input byte 2"},
          {kStd, "aGk=aGk=", "", "illegal base64 data at input byte 4"},
          {kStd, "aGk= ", "", "illegal base64 data at input byte 4"},
          {kStd, "-_==", "", "illegal base64 data at input byte 0"},
          {kUrl, "aGk", "hi", ""},
          {kUrl, "aGk\n", "hi", ""},
          {kUrl, "-_-_", "\xfb\xff\xbf", ""},
          {kUrl, "aGk=", "", "illegal base64 data at input byte 3"},
          {kUrl, "abc$", "", "illegal base64 data at input byte 3"},
          {kUrl, "eyJ2Ijo=", "", "illegal base64 data at input byte 7"},
          {kUrl, "a", "", "illegal base64 data at input byte 0"},
          {kUrl, "aGk+", "", "illegal base64 data at input byte 3"},
          {kUrl, "aGVsb\n", "", "illegal base64 data at input byte 5"},
      }));
  CAPTURE(text, encoding == kUrl);
  const auto decoded = go_base64_decode(text, encoding);
  CHECK(decoded.bytes == bytes);
  CHECK(decoded.error == error);
}

TEST_CASE("every byte value survives a round trip", "[base64]") {
  std::string bytes;
  for (int b = 0; b < 256; ++b) {
    bytes += static_cast<char>(b);
  }
  for (std::size_t size = 0; size <= bytes.size(); size += 37) {
    const std::string part = bytes.substr(0, size);
    CAPTURE(size);
    CHECK(base64_decode(base64_encode(part)) == std::optional<std::string>(part));
    CHECK(go_base64_decode(base64url_encode_raw(part), GoBase64::RawUrl).bytes == part);
  }
}
