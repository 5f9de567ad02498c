// Request bodies in the Kubernetes protobuf encoding (protobuf/decode.h); the input is the
// body. What decodes is written as JSON, as the handler then reads it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "protobuf/decode.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto decoded = apiserver::protobuf::decode_k8s_protobuf(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (decoded) {
    (void)decoded->dump();
  }
  return 0;
}
