// Protobuf test inputs: a minimal writer for hand-made request bodies (varints, fields, and the
// "k8s\0" envelope, runtime.Unknown, that kube clients wrap an object's message in), and the
// captured kubectl bodies of data/protobuf.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

namespace apiserver::testing {

// data/protobuf/NAME: NAME.pb is the body kubectl v1.32 POSTed for one command, NAME.json what the
// same command prints with --dry-run=client -o json.
inline std::string read_protobuf_data(const std::string& name) {
  std::ifstream in(std::string(KS_APISERVER_TEST_DATA) + "/protobuf/" + name, std::ios::binary);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}

inline std::string field_varint(std::uint32_t number, std::uint64_t v) {
  return varint(std::uint64_t{number} << 3) + varint(v);
}

inline std::string field_bytes(std::uint32_t number, std::string_view bytes) {
  return varint(std::uint64_t{number} << 3 | 2) + varint(bytes.size()) + std::string(bytes);
}

// The envelope of `raw`, the message of an object of `kind` in `api_version`.
inline std::string k8s_body(std::string_view api_version, std::string_view kind,
                            std::string_view raw) {
  const std::string type_meta = field_bytes(1, api_version) + field_bytes(2, kind);
  return std::string("k8s\0", 4) + field_bytes(1, type_meta) + field_bytes(2, raw) +
         field_bytes(3, "") + field_bytes(4, "");
}

}  // namespace apiserver::testing
