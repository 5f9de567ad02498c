// Writing a JSON object as its protobuf message, field by field, from the same facts the decoder
// reads (facts.h); see encode.h for the rules.
#include "protobuf/encode.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "common/base64.h"
#include "common/go_numbers.h"
#include "common/rfc3339.h"
#include "protobuf/decode.h"
#include "protobuf/facts.h"
#include "protobuf/wire.h"

namespace apiserver::protobuf {
namespace {

using detail::Field;
using detail::GoKind;
using detail::Message;
using detail::Scalar;
using detail::Special;
using nlohmann::json;

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

void put_tag(std::string& out, std::uint32_t number, detail::Wire wire) {
  put_varint(out, (std::uint64_t{number} << 3) | static_cast<std::uint32_t>(wire));
}

void put_bytes(std::string& out, std::uint32_t number, std::string_view bytes) {
  put_tag(out, number, detail::Wire::Len);
  put_varint(out, bytes.size());
  out.append(bytes);
}

void put_fixed(std::string& out, std::uint64_t bits, int size) {
  for (int i = 0; i < size; ++i) {
    out += static_cast<char>((bits >> (8 * i)) & 0xFF);
  }
}

class Encoder {
 public:
  const std::string& error() const { return error_; }

  bool message(const Message& m, const json& in, int depth, std::string& out) {
    if (depth > kMaxProtobufDepth) {
      return fail(m.name + ": nesting deeper than " + std::to_string(kMaxProtobufDepth));
    }
    if (m.special != Special::None) {
      return special(m, in, out);
    }
    if (m.json_array) {
      return m.fields.empty() || in.is_null() || field(m.fields[0], in, depth, m.name, out);
    }
    if (!in.is_object()) {
      return fail(m.name + ": not a JSON object");
    }
    for (const Field& f : m.fields) {
      if (f.hidden) {
        continue;
      }
      if (f.inline_) {
        std::string embedded;
        if (f.message == nullptr) {
          return fail(m.name + ": inline field without a message");
        }
        if (!message(*f.message, in, depth + 1, embedded)) {
          return false;
        }
        put_bytes(out, f.number, embedded);
        continue;
      }
      auto it = in.find(f.json_name);
      if (it == in.end() || it->is_null()) {
        continue;
      }
      if (!field(f, *it, depth, m.name + "." + f.json_name, out)) {
        return false;
      }
    }
    return true;
  }

 private:
  bool fail(const std::string& what) {
    if (error_.empty()) {
      error_ = "protobuf: " + what;
    }
    return false;
  }

  bool field(const Field& f, const json& v, int depth, const std::string& where, std::string& out) {
    if (f.is_map) {
      if (!v.is_object()) {
        return fail(where + ": not a JSON object");
      }
      for (auto it = v.begin(); it != v.end(); ++it) {
        std::string entry;
        if (!map_key(f.map_key, it.key(), where, entry) ||
            (!it.value().is_null() &&
             !value(f.type, f.message, 2, it.value(), depth, where, entry))) {
          return false;
        }
        put_bytes(out, f.number, entry);
      }
      return true;
    }
    if (f.repeated) {
      if (!v.is_array()) {
        return fail(where + ": not a JSON array");
      }
      for (const json& item : v) {
        if (!value(f.type, f.message, f.number, item, depth, where, out)) {
          return false;
        }
      }
      return true;
    }
    return value(f.type, f.message, f.number, v, depth, where, out);
  }

  bool map_key(Scalar type, const std::string& key, const std::string& where, std::string& out) {
    if (type == Scalar::String) {
      put_bytes(out, 1, key);
      return true;
    }
    json number = json::parse(key, nullptr, false);
    return value(type, nullptr, 1, number, 0, where + " key", out);
  }

  // An integer JSON value (or a float with an integral value) as int64 bits.
  bool integer(const json& v, const std::string& where, std::uint64_t& bits) {
    if (v.is_number_unsigned()) {
      bits = v.get<std::uint64_t>();
      return true;
    }
    if (v.is_number_integer()) {
      bits = static_cast<std::uint64_t>(v.get<std::int64_t>());
      return true;
    }
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9.2e18) {
        bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(d));
        return true;
      }
    }
    return fail(where + ": not an integer");
  }

  bool value(Scalar type, const Message* message, std::uint32_t number, const json& v, int depth,
             const std::string& where, std::string& out) {
    std::uint64_t bits = 0;
    switch (type) {
      case Scalar::String:
        if (!v.is_string()) {
          return fail(where + ": not a JSON string");
        }
        put_bytes(out, number, v.get_ref<const std::string&>());
        return true;
      case Scalar::Bytes: {
        auto raw =
            v.is_string() ? common::base64_decode(v.get_ref<const std::string&>()) : std::nullopt;
        if (!raw) {
          return fail(where + ": not base64");
        }
        put_bytes(out, number, *raw);
        return true;
      }
      case Scalar::Message: {
        std::string embedded;
        if (message == nullptr) {
          return fail(where + ": no message");
        }
        if (!this->message(*message, v, depth + 1, embedded)) {
          return false;
        }
        put_bytes(out, number, embedded);
        return true;
      }
      case Scalar::Bool:
        if (!v.is_boolean()) {
          return fail(where + ": not a JSON boolean");
        }
        put_tag(out, number, detail::Wire::Varint);
        put_varint(out, v.get<bool>() ? 1 : 0);
        return true;
      case Scalar::Double:
      case Scalar::Float: {
        if (!v.is_number()) {
          return fail(where + ": not a JSON number");
        }
        const double d = v.get<double>();
        if (type == Scalar::Double) {
          std::memcpy(&bits, &d, sizeof d);
          put_tag(out, number, detail::Wire::Fixed64);
          put_fixed(out, bits, 8);
        } else {
          const float fl = static_cast<float>(d);
          std::uint32_t b32 = 0;
          std::memcpy(&b32, &fl, sizeof fl);
          put_tag(out, number, detail::Wire::Fixed32);
          put_fixed(out, b32, 4);
        }
        return true;
      }
      default:
        break;
    }
    if (!integer(v, where, bits)) {
      return false;
    }
    switch (type) {
      case Scalar::Sint32:
      case Scalar::Sint64: {
        const auto s = static_cast<std::int64_t>(bits);
        bits = (static_cast<std::uint64_t>(s) << 1) ^ static_cast<std::uint64_t>(s >> 63);
        if (type == Scalar::Sint32) {
          bits &= 0xFFFFFFFFu;
        }
        break;
      }
      case Scalar::Fixed32:
      case Scalar::Sfixed32:
        put_tag(out, number, detail::Wire::Fixed32);
        put_fixed(out, bits, 4);
        return true;
      case Scalar::Fixed64:
      case Scalar::Sfixed64:
        put_tag(out, number, detail::Wire::Fixed64);
        put_fixed(out, bits, 8);
        return true;
      case Scalar::Uint32:
        bits &= 0xFFFFFFFFu;
        break;
      default:  // int32 and enums sign-extend to 64 bits, as protobuf writes them
        break;
    }
    put_tag(out, number, detail::Wire::Varint);
    put_varint(out, bits);
    return true;
  }

  bool special(const Message& m, const json& v, std::string& out) {
    switch (m.special) {
      case Special::Time:
      case Special::MicroTime: {
        auto t =
            v.is_string() ? common::parse_rfc3339(v.get_ref<const std::string&>()) : std::nullopt;
        if (!t) {
          return fail(m.name + ": not an RFC 3339 time");
        }
        put_tag(out, 1, detail::Wire::Varint);
        put_varint(out, static_cast<std::uint64_t>(t->seconds));
        if (m.special == Special::MicroTime && t->nanos != 0) {
          put_tag(out, 2, detail::Wire::Varint);
          put_varint(out, static_cast<std::uint64_t>(t->nanos / 1000 * 1000));
        }
        return true;
      }
      case Special::Duration: {
        if (!v.is_string()) {
          return fail(m.name + ": not a JSON string");
        }
        auto d = common::parse_duration(v.get_ref<const std::string&>());
        if (!d) {
          return fail(m.name + ": " + d.error());
        }
        put_tag(out, 1, detail::Wire::Varint);
        put_varint(out, static_cast<std::uint64_t>(d->count()));
        return true;
      }
      case Special::Quantity:
        if (v.is_string()) {
          put_bytes(out, 1, v.get_ref<const std::string&>());
        } else if (v.is_number()) {
          put_bytes(out, 1, v.dump());
        } else {
          return fail(m.name + ": not a quantity");
        }
        return true;
      case Special::IntOrString: {
        if (v.is_string()) {
          put_tag(out, 1, detail::Wire::Varint);
          put_varint(out, 1);
          put_bytes(out, 3, v.get_ref<const std::string&>());
          return true;
        }
        std::uint64_t bits = 0;
        if (!integer(v, m.name, bits)) {
          return false;
        }
        put_tag(out, 1, detail::Wire::Varint);
        put_varint(out, 0);
        put_tag(out, 2, detail::Wire::Varint);
        put_varint(out, bits);
        return true;
      }
      case Special::RawExtension:
      case Special::FieldsV1:
        put_bytes(out, 1, v.dump());
        return true;
      case Special::None:
        break;
    }
    return fail(m.name + ": not a special type");
  }

  std::string error_;
};

void put_envelope(std::string& out, std::string_view api_version, std::string_view kind,
                  std::string_view raw) {
  std::string type_meta;
  put_bytes(type_meta, 1, api_version);
  put_bytes(type_meta, 2, kind);
  out.assign("k8s\0", 4);
  put_bytes(out, 1, type_meta);
  put_bytes(out, 2, raw);
  put_bytes(out, 3, "");
  put_bytes(out, 4, "");
}

}  // namespace

bool has_message(std::string_view api_version, std::string_view kind) {
  const auto& kinds = detail::proto_facts().kinds;
  return kinds.find(std::string(api_version) + " " + std::string(kind)) != kinds.end();
}

common::Result<std::string> encode_k8s_protobuf(const nlohmann::json& object) {
  using Failure = common::Result<std::string>;
  const json* api_version = nullptr;
  const json* kind = nullptr;
  if (object.is_object()) {
    auto a = object.find("apiVersion");
    auto k = object.find("kind");
    if (a != object.end() && a->is_string() && k != object.end() && k->is_string()) {
      api_version = &*a;
      kind = &*k;
    }
  }
  if (api_version == nullptr) {
    return Failure::failure("protobuf: the object has no apiVersion or kind");
  }
  const auto& kinds = detail::proto_facts().kinds;
  auto found = kinds.find(api_version->get<std::string>() + " " + kind->get<std::string>());
  if (found == kinds.end()) {
    return Failure::failure("protobuf: no protobuf message for apiVersion \"" +
                            api_version->get<std::string>() + "\" kind \"" +
                            kind->get<std::string>() + "\"");
  }
  Encoder encoder;
  std::string raw;
  if (!encoder.message(*found->second, object, 1, raw)) {
    return Failure::failure(encoder.error());
  }
  std::string out;
  put_envelope(out, api_version->get_ref<const std::string&>(), kind->get_ref<const std::string&>(),
               raw);
  return out;
}

}  // namespace apiserver::protobuf
