// The decoder of one protobuf message into the JSON Go's encoding/json writes for the object it
// decodes to (see protobuf.h for the rules).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "protobuf/decode.h"
#include "protobuf/facts.h"
#include "protobuf/wire.h"

namespace apiserver::protobuf::detail {

using nlohmann::json;

class Decoder {
 public:
  Decoder() = default;

  const std::string& error() const { return error_; }

  // The JSON of `bytes` as message `m`, in Go's JSON form; empty bytes give the zero value.
  bool message(const Message& m, std::string_view bytes, int depth, json& out);

  bool fail(const std::string& what) {
    if (error_.empty()) {
      error_ = "protobuf: " + what;
    }
    return false;
  }

 private:
  bool count() {
    if (++values_ > kMaxProtobufValues) {
      return fail("the body decodes to more than " + std::to_string(kMaxProtobufValues) +
                  " values");
    }
    return true;
  }
  bool special(const Message& m, std::string_view bytes, int depth, json& out);
  bool scalar(const Field& f, Scalar type, Wire wire, Reader& r, json& out,
              const std::string& where);
  bool value(const Field& f, Scalar type, const Message* message, Wire wire, Reader& r, int depth,
             json& out, const std::string& where);
  bool map_entry(const Field& f, std::string_view bytes, int depth, json& out,
                 const std::string& where);
  bool zero(const Field& f, int depth, json& out);

  std::string error_;
  std::size_t values_ = 0;
};

}  // namespace apiserver::protobuf::detail
