// Decoding follows Go's encoding/base64 decodeQuantum (read upstream, Go 1.22): a quantum of up to
// four digits; skipped bytes do not count; '=' may end a quantum of two or three digits, after
// which only skipped bytes may follow. The strict and lenient decoders are the same walk with
// padding required and another set of skipped bytes.
#include "common/base64.h"

#include <array>
#include <cstddef>
#include <cstdint>

namespace common {
namespace {

constexpr char kStdAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kUrlAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr std::size_t kNoError = static_cast<std::size_t>(-1);

std::string encode(std::string_view bytes, const char* alphabet, bool pad) {
  auto at = [&](std::size_t k) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k]));
  };
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
    out += alphabet[v >> 18];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
    out += alphabet[v & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    const std::uint32_t v = at(i) << 16 | (rest == 2 ? at(i + 1) << 8 : 0);
    out += alphabet[v >> 18];
    out += alphabet[(v >> 12) & 63];
    if (rest == 2) {
      out += alphabet[(v >> 6) & 63];
    }
    if (pad) {
      out.append(3 - rest, '=');
    }
  }
  return out;
}

// The value of each byte as a digit of an alphabet, -1 for the bytes not in it.
struct Digits {
  std::array<signed char, 256> value{};
  explicit constexpr Digits(const char* alphabet) {
    value.fill(-1);
    for (int i = 0; i < 64; ++i) {
      value[static_cast<unsigned char>(alphabet[i])] = static_cast<signed char>(i);
    }
  }
  int operator()(char c) const { return value[static_cast<unsigned char>(c)]; }
};

constexpr Digits kStdDigits(kStdAlphabet);
constexpr Digits kUrlDigits(kUrlAlphabet);

enum class Skip { None, LineBreaks, Whitespace };

bool skipped(char c, Skip skip) {
  switch (skip) {
    case Skip::None:
      return false;
    case Skip::LineBreaks:
      return c == '\r' || c == '\n';
    case Skip::Whitespace:
      return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
  }
  return false;
}

struct Decoding {
  std::string bytes;
  std::size_t error_at = kNoError;
};

Decoding decode(std::string_view src, bool url, bool padded, Skip skip) {
  Decoding d;
  d.bytes.reserve(src.size() / 4 * 3 + 3);
  auto fail = [&](std::size_t at) {
    d.bytes.clear();
    d.error_at = at;
    return d;
  };
  const std::size_t n = src.size();
  auto skip_from = [&](std::size_t& si) {
    while (si < n && skipped(src[si], skip)) {
      ++si;
    }
  };
  std::size_t si = 0;
  bool done = false;
  while (!done && si < n) {
    std::uint32_t value = 0;
    std::size_t j = 0;  // digits read in this quantum
    while (j < 4) {
      if (si == n) {
        if (j == 0) {
          return d;  // only skipped bytes after the last quantum
        }
        if (j == 1 || padded) {
          return fail(si - j);
        }
        done = true;
        break;
      }
      const char in = src[si++];
      if (const int v = (url ? kUrlDigits : kStdDigits)(in); v >= 0) {
        value |= static_cast<std::uint32_t>(v) << (18 - 6 * j);
        ++j;
        continue;
      }
      if (skipped(in, skip)) {
        continue;
      }
      if (!padded || in != '=' || j < 2) {
        return fail(si - 1);
      }
      if (j == 2) {  // a second '=' must follow
        skip_from(si);
        if (si == n) {
          return fail(n);
        }
        if (src[si] != '=') {
          return fail(si - 1);
        }
        ++si;
      }
      skip_from(si);
      if (si < n) {
        return fail(si);
      }
      done = true;
      break;
    }
    for (std::size_t k = 0; k + 1 < j; ++k) {
      d.bytes += static_cast<char>((value >> (16 - 8 * k)) & 0xFF);
    }
  }
  return d;
}

std::optional<std::string> bytes_of(Decoding d) {
  if (d.error_at != kNoError) {
    return std::nullopt;
  }
  return std::move(d.bytes);
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  return encode(bytes, kStdAlphabet, true);
}

std::string base64url_encode_raw(std::string_view bytes) {
  return encode(bytes, kUrlAlphabet, false);
}

std::optional<std::string> base64_decode(std::string_view text) {
  return bytes_of(decode(text, false, true, Skip::None));
}

std::optional<std::string> base64_decode_lenient(std::string_view text) {
  return bytes_of(decode(text, false, true, Skip::Whitespace));
}

GoBase64Decoded go_base64_decode(std::string_view text, GoBase64 encoding) {
  const bool url = encoding == GoBase64::RawUrl;
  Decoding d = decode(text, url, !url, Skip::LineBreaks);
  GoBase64Decoded out;
  if (d.error_at != kNoError) {
    out.error = "illegal base64 data at input byte " + std::to_string(d.error_at);
  } else {
    out.bytes = std::move(d.bytes);
  }
  return out;
}

}  // namespace common
