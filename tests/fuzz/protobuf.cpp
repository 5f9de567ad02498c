// Request bodies in the Kubernetes protobuf encoding (protobuf/decode.h); the input is the
// body. What decodes is written as JSON, as the handler then reads it, and written back as
// protobuf (protobuf/encode.h), as storage does with --storage-media-type protobuf: decoding that
// must give the same JSON, but for keys whose value is null (Go writes a non-nil pointer to a zero
// Time as null, and reads null back as nil, so such a key comes back absent); a difference
// aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "protobuf/decode.h"
#include "protobuf/encode.h"

namespace {

// `value` without the object keys whose value is null, at every depth.
nlohmann::json without_nulls(const nlohmann::json& value) {
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : value) {
      out.push_back(without_nulls(item));
    }
    return out;
  }
  if (!value.is_object()) {
    return value;
  }
  nlohmann::json out = nlohmann::json::object();
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!it.value().is_null()) {
      out[it.key()] = without_nulls(it.value());
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto decoded = apiserver::protobuf::decode_k8s_protobuf(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (!decoded) {
    return 0;
  }
  const std::string first = without_nulls(*decoded).dump();
  auto encoded = apiserver::protobuf::encode_k8s_protobuf(*decoded);
  if (!encoded) {
    std::fprintf(stderr, "decoded but not encoded: %s\n%s\n", encoded.error().c_str(),
                 first.c_str());
    std::abort();
  }
  auto again = apiserver::protobuf::decode_k8s_protobuf(*encoded);
  const std::string second = again ? without_nulls(*again).dump() : again.error();
  if (second != first) {
    std::fprintf(stderr, "round trip differs:\n%s\n%s\n", first.c_str(), second.c_str());
    std::abort();
  }
  return 0;
}
