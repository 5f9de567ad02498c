// The protobuf facts (apiserver/facts/proto.json) as the decoder uses them: each message's fields
// with their numbers, types, JSON names and Go JSON rules, and the message of each apiVersion +
// kind.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace apiserver::protobuf::detail {

enum class Scalar {
  Int32,
  Int64,
  Uint32,
  Uint64,
  Bool,
  Enum,
  String,
  Bytes,
  Double,
  Float,
  Fixed32,
  Fixed64,
  Sfixed32,
  Sfixed64,
  Sint32,
  Sint64,
  Message
};

// How Go's encoding/json treats the struct field the protobuf field decodes into.
enum class GoKind { Value, Pointer, Struct, Slice, Map };

// Message types whose Go type has its own JSON form.
enum class Special {
  None,
  Time,
  MicroTime,
  Duration,
  Quantity,
  IntOrString,
  RawExtension,
  FieldsV1
};

struct Message;

struct Field {
  std::uint32_t number = 0;
  std::string json_name;  // empty for inline fields
  Scalar type = Scalar::String;
  const Message* message = nullptr;  // type == Message (or map value Message)
  bool is_map = false;
  Scalar map_key = Scalar::String;
  bool repeated = false;
  bool inline_ = false;
  bool omitempty = false;
  bool hidden = false;  // json:"-"
  GoKind go = GoKind::Value;
};

struct Message {
  std::string name;
  std::vector<Field> fields;  // sorted by number
  bool json_array = false;    // a named Go slice: one repeated `items` field, JSON is the array
  Special special = Special::None;

  const Field* find(std::uint32_t number) const {
    auto it = std::lower_bound(fields.begin(), fields.end(), number,
                               [](const Field& f, std::uint32_t n) { return f.number < n; });
    return it != fields.end() && it->number == number ? &*it : nullptr;
  }
};

struct Facts {
  std::unordered_map<std::string, std::unique_ptr<Message>> messages;
  std::unordered_map<std::string, const Message*> kinds;  // "apps/v1 Deployment" -> message
};

// The facts, parsed on first use (thread-safe); a broken facts file aborts (a build defect).
const Facts& proto_facts();

}  // namespace apiserver::protobuf::detail
