// Bytes as lowercase hexadecimal text, two digits a byte: how tokens, digests and secrets are
// written. Pure.
#pragma once

#include <string>
#include <string_view>

namespace common {

inline std::string lower_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += kDigits[b >> 4];
    out += kDigits[b & 0xf];
  }
  return out;
}

}  // namespace common
