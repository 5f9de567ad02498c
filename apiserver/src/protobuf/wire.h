// The protobuf wire format as read by the decoder: wire types and a bounds-checked reader.
// Header-only so the per-byte reads inline into the decoding loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace apiserver::protobuf::detail {

enum class Wire : std::uint32_t {
  Varint = 0,
  Fixed64 = 1,
  Len = 2,
  StartGroup = 3,
  EndGroup = 4,
  Fixed32 = 5
};

// Bounds-checked reader over one message's bytes. Every read fails (returns false) instead of
// reading past the end.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  bool done() const { return p_ == end_; }

  bool varint(std::uint64_t& out) {
    out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) {
        return false;
      }
      const auto byte = static_cast<std::uint8_t>(*p_++);
      if (shift == 63 && byte > 1) {
        return false;  // more than 64 bits
      }
      out |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) {
        return true;
      }
    }
    return false;
  }

  bool fixed(int bytes, std::uint64_t& out) {
    if (end_ - p_ < bytes) {
      return false;
    }
    out = 0;
    for (int i = 0; i < bytes; ++i) {
      out |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(p_[i])) << (8 * i);
    }
    p_ += bytes;
    return true;
  }

  bool length_delimited(std::string_view& out) {
    std::uint64_t n = 0;
    if (!varint(n) || n > static_cast<std::uint64_t>(end_ - p_)) {
      return false;
    }
    out = std::string_view(p_, static_cast<std::size_t>(n));
    p_ += n;
    return true;
  }

  struct Field {
    std::uint64_t number = 0;
    Wire wire = Wire::Varint;
    std::uint64_t value = 0;  // of a varint or fixed field
    std::string_view bytes;   // of a length-delimited field
  };

  // Reads the next field, or says what is wrong with it ("truncated field 3").
  common::Result<Field> field() {
    std::uint64_t tag = 0;
    if (!varint(tag)) {
      return std::string("truncated tag");
    }
    Field f;
    f.number = tag >> 3;
    f.wire = static_cast<Wire>(tag & 7);
    bool ok = false;
    switch (f.wire) {
      case Wire::Varint:
        ok = varint(f.value);
        break;
      case Wire::Fixed64:
        ok = fixed(8, f.value);
        break;
      case Wire::Fixed32:
        ok = fixed(4, f.value);
        break;
      case Wire::Len:
        ok = length_delimited(f.bytes);
        break;
      default:
        return std::string("unsupported wire type");
    }
    if (!ok) {
      return "truncated field " + std::to_string(f.number);
    }
    return f;
  }

 private:
  const char* p_;
  const char* end_;
};

}  // namespace apiserver::protobuf::detail
