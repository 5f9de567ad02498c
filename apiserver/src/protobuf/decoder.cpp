// Decoding message bytes field by field into Go's JSON form: scalars, strings and bytes, maps,
// repeated and packed fields, the special types (Time, Duration, Quantity, IntOrString,
// RawExtension, ...), and the zero values and omitempty rules of absent fields.
#include "protobuf/decoder.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "common/base64.h"
#include "common/rfc3339.h"
#include "protobuf/go_text.h"

namespace apiserver::protobuf::detail {
namespace {

bool is_varint_type(Scalar t) {
  switch (t) {
    case Scalar::Int32:
    case Scalar::Int64:
    case Scalar::Uint32:
    case Scalar::Uint64:
    case Scalar::Bool:
    case Scalar::Enum:
    case Scalar::Sint32:
    case Scalar::Sint64:
      return true;
    default:
      return false;
  }
}

Wire wire_of(Scalar t) {
  if (is_varint_type(t)) {
    return Wire::Varint;
  }
  switch (t) {
    case Scalar::Double:
    case Scalar::Fixed64:
    case Scalar::Sfixed64:
      return Wire::Fixed64;
    case Scalar::Float:
    case Scalar::Fixed32:
    case Scalar::Sfixed32:
      return Wire::Fixed32;
    default:
      return Wire::Len;
  }
}

bool is_zero(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return true;
    case json::value_t::boolean:
      return !v.get<bool>();
    case json::value_t::number_integer:
      return v.get<std::int64_t>() == 0;
    case json::value_t::number_unsigned:
      return v.get<std::uint64_t>() == 0;
    case json::value_t::number_float:
      return v.get<double>() == 0.0;
    case json::value_t::string:
      return v.get_ref<const std::string&>().empty();
    case json::value_t::array:
    case json::value_t::object:
      return v.empty();
    default:
      return false;
  }
}

}  // namespace

bool Decoder::scalar(const Field& f, Scalar type, Wire wire, Reader& r, json& out,
                     const std::string& where) {
  (void)f;
  std::uint64_t v = 0;
  switch (wire) {
    case Wire::Varint:
      if (!r.varint(v)) {
        return fail(where + ": truncated varint");
      }
      break;
    case Wire::Fixed64:
      if (!r.fixed(8, v)) {
        return fail(where + ": truncated fixed64");
      }
      break;
    case Wire::Fixed32:
      if (!r.fixed(4, v)) {
        return fail(where + ": truncated fixed32");
      }
      break;
    default:
      return fail(where + ": unexpected wire type");
  }
  switch (type) {
    case Scalar::Int32:
    case Scalar::Enum:
    case Scalar::Sfixed32:
      out = static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
      return true;
    case Scalar::Int64:
    case Scalar::Sfixed64:
      out = static_cast<std::int64_t>(v);
      return true;
    case Scalar::Uint32:
    case Scalar::Fixed32:
      out = static_cast<std::uint32_t>(v);
      return true;
    case Scalar::Uint64:
    case Scalar::Fixed64:
      out = v;
      return true;
    case Scalar::Sint32: {
      const auto u = static_cast<std::uint32_t>(v);
      out = static_cast<std::int32_t>((u >> 1) ^ (0U - (u & 1U)));
      return true;
    }
    case Scalar::Sint64:
      out = static_cast<std::int64_t>((v >> 1) ^ (0ULL - (v & 1ULL)));
      return true;
    case Scalar::Bool:
      out = v != 0;
      return true;
    case Scalar::Double:
    case Scalar::Float: {
      double d = 0;
      if (type == Scalar::Double) {
        static_assert(sizeof(double) == sizeof(std::uint64_t));
        std::memcpy(&d, &v, sizeof d);
      } else {
        float fl = 0;
        const auto bits = static_cast<std::uint32_t>(v);
        std::memcpy(&fl, &bits, sizeof fl);
        d = fl;
      }
      if (!std::isfinite(d)) {
        return fail(where + ": not a finite number");
      }
      out = d;
      return true;
    }
    default:
      return fail(where + ": unexpected scalar type");
  }
}

bool Decoder::value(const Field& f, Scalar type, const Message* message, Wire wire, Reader& r,
                    int depth, json& out, const std::string& where) {
  if (!count()) {
    return false;
  }
  if (type != Scalar::String && type != Scalar::Bytes && type != Scalar::Message) {
    return scalar(f, type, wire, r, out, where);
  }
  if (wire != Wire::Len) {
    return fail(where + ": unexpected wire type");
  }
  std::string_view bytes;
  if (!r.length_delimited(bytes)) {
    return fail(where + ": length past the end of the data");
  }
  if (type == Scalar::String) {
    out = valid_utf8(bytes);
    return true;
  }
  if (type == Scalar::Bytes) {
    out = common::base64_encode(bytes);
    return true;
  }
  return this->message(*message, bytes, depth + 1, out);
}

bool Decoder::map_entry(const Field& f, std::string_view bytes, int depth, json& out,
                        const std::string& where) {
  Reader r(bytes);
  json key;
  json val;
  bool has_key = false;
  bool has_value = false;
  while (!r.done()) {
    std::uint64_t tag = 0;
    if (!r.varint(tag)) {
      return fail(where + ": truncated map entry");
    }
    const auto wire = static_cast<Wire>(tag & 7);
    const std::uint64_t number = tag >> 3;
    if (number == 1) {
      if (wire != wire_of(f.map_key)) {
        return fail(where + ": map key has the wrong wire type");
      }
      if (!value(f, f.map_key, nullptr, wire, r, depth, key, where + " key")) {
        return false;
      }
      has_key = true;
    } else if (number == 2) {
      if (wire != wire_of(f.type)) {
        return fail(where + ": map value has the wrong wire type");
      }
      if (!value(f, f.type, f.message, wire, r, depth, val, where + " value")) {
        return false;
      }
      has_value = true;
    } else {
      return fail(where + ": map entry field " + std::to_string(number));
    }
  }
  std::string key_text;
  if (!has_key) {
    key_text = f.map_key == Scalar::String ? "" : "0";
  } else if (key.is_string()) {
    key_text = key.get<std::string>();
  } else {
    key_text = key.dump();  // Go writes integer and bool keys as their text
  }
  if (!has_value) {
    if (f.type == Scalar::Message) {
      if (!message(*f.message, {}, depth + 1, val)) {
        return false;
      }
    } else if (f.type == Scalar::String || f.type == Scalar::Bytes) {
      val = "";
    } else if (f.type == Scalar::Bool) {
      val = false;
    } else {
      val = 0;
    }
  }
  out[key_text] = std::move(val);
  return true;
}

bool Decoder::special(const Message& m, std::string_view bytes, int depth, json& out) {
  // Every special message is small and flat: fields 1 and 2 are all that matter.
  std::uint64_t ints[3] = {0, 0, 0};
  std::string_view texts[4];
  bool seen[4] = {false, false, false, false};
  Reader r(bytes);
  while (!r.done()) {
    auto field = r.field();
    if (!field) {
      return fail(m.name + ": " + field.error());
    }
    if (const std::uint64_t number = field->number; number >= 1 && number <= 3) {
      seen[number] = true;
      ints[number - 1] = field->value;
      texts[number] = field->bytes;
    }
  }
  switch (m.special) {
    case Special::Time:
    case Special::MicroTime: {
      if (bytes.empty()) {
        out = nullptr;  // the zero time
        return true;
      }
      const auto seconds = static_cast<std::int64_t>(ints[0]);
      const auto nanos = static_cast<std::int32_t>(static_cast<std::uint32_t>(ints[1]));
      if (nanos < 0 || nanos > 999999999) {
        return fail(m.name + ": nanos out of range");
      }
      const auto text = m.special == Special::MicroTime
                            ? common::format_rfc3339_micro(seconds, nanos / 1000)
                            : common::format_rfc3339(seconds);
      if (!text) {
        return fail(m.name + ": year outside [0,9999]");
      }
      out = *text;
      return true;
    }
    case Special::Duration:
      out = go_duration(static_cast<std::int64_t>(ints[0]));
      return true;
    case Special::Quantity:
      out = texts[1].empty() ? std::string("0") : valid_utf8(texts[1]);
      return true;
    case Special::IntOrString:
      if (ints[0] == 1) {
        out = valid_utf8(texts[3]);
      } else {
        out = static_cast<std::int32_t>(static_cast<std::uint32_t>(ints[1]));
      }
      return true;
    case Special::RawExtension:
    case Special::FieldsV1: {
      if (!seen[1]) {
        out = nullptr;
        return true;
      }
      // Embedded JSON nests into the same depth limit (dump() recurses).
      bool too_deep = false;
      const json::parser_callback_t limit = [&](int level, json::parse_event_t, json&) {
        too_deep = too_deep || depth + level > kMaxProtobufDepth;
        return !too_deep;
      };
      json parsed = json::parse(texts[1].begin(), texts[1].end(), limit, false);
      if (too_deep) {
        return fail(m.name + ": nesting deeper than " + std::to_string(kMaxProtobufDepth));
      }
      if (parsed.is_discarded()) {
        return fail(m.name + ": raw bytes are not JSON");
      }
      out = std::move(parsed);
      return true;
    }
    case Special::None:
      break;
  }
  return fail(m.name + ": not a special type");
}

bool Decoder::zero(const Field& f, int depth, json& out) {
  switch (f.go) {
    case GoKind::Struct:
      if (f.message == nullptr) {
        out = json::object();
        return true;
      }
      return message(*f.message, {}, depth + 1, out);
    case GoKind::Pointer:
    case GoKind::Slice:
    case GoKind::Map:
      out = nullptr;
      return true;
    case GoKind::Value:
      break;
  }
  switch (f.type) {
    case Scalar::String:
      out = "";
      break;
    case Scalar::Bytes:
      out = nullptr;
      break;
    case Scalar::Bool:
      out = false;
      break;
    case Scalar::Message:
      return message(*f.message, {}, depth + 1, out);
    default:
      out = 0;
      break;
  }
  return true;
}

bool Decoder::message(const Message& m, std::string_view bytes, int depth, json& out) {
  if (depth > kMaxProtobufDepth) {
    return fail(m.name + ": nesting deeper than " + std::to_string(kMaxProtobufDepth));
  }
  if (!count()) {
    return false;
  }
  if (m.special != Special::None) {
    return special(m, bytes, depth, out);
  }
  // Decoded values by field index; repeated fields collect arrays, maps objects.
  std::vector<json> values(m.fields.size());
  std::vector<bool> present(m.fields.size(), false);
  Reader r(bytes);
  while (!r.done()) {
    std::uint64_t tag = 0;
    if (!r.varint(tag)) {
      return fail(m.name + ": truncated tag");
    }
    const std::uint64_t number = tag >> 3;
    const auto wire = static_cast<Wire>(tag & 7);
    if (number == 0 || number > 536870911) {
      return fail(m.name + ": invalid field number");
    }
    const Field* f = m.find(static_cast<std::uint32_t>(number));
    if (f == nullptr) {
      // Unknown field: skip it by its wire type.
      std::uint64_t ignored = 0;
      std::string_view skipped;
      bool ok = false;
      switch (wire) {
        case Wire::Varint:
          ok = r.varint(ignored);
          break;
        case Wire::Fixed64:
          ok = r.fixed(8, ignored);
          break;
        case Wire::Fixed32:
          ok = r.fixed(4, ignored);
          break;
        case Wire::Len:
          ok = r.length_delimited(skipped);
          break;
        default:
          return fail(m.name + ": unsupported wire type in field " + std::to_string(number));
      }
      if (!ok) {
        return fail(m.name + ": truncated field " + std::to_string(number));
      }
      continue;
    }
    const auto index = static_cast<std::size_t>(f - m.fields.data());
    const std::string where = m.name + "." + (f->json_name.empty() ? "(inline)" : f->json_name);
    json& slot = values[index];
    if (f->is_map) {
      std::string_view entry;
      if (wire != Wire::Len || !r.length_delimited(entry)) {
        return fail(where + ": malformed map entry");
      }
      if (!present[index]) {
        slot = json::object();
      }
      present[index] = true;
      if (!count() || !map_entry(*f, entry, depth, slot, where)) {
        return false;
      }
      continue;
    }
    const Wire expected = wire_of(f->type);
    if (f->repeated && wire == Wire::Len && expected != Wire::Len) {
      // Packed scalars.
      std::string_view packed;
      if (!r.length_delimited(packed)) {
        return fail(where + ": length past the end of the data");
      }
      if (!present[index]) {
        slot = json::array();
      }
      present[index] = true;
      Reader pr(packed);
      while (!pr.done()) {
        json item;
        if (!value(*f, f->type, f->message, expected, pr, depth, item, where)) {
          return false;
        }
        slot.push_back(std::move(item));
      }
      continue;
    }
    if (wire != expected) {
      return fail(where + ": wire type " + std::to_string(static_cast<int>(wire)) +
                  " does not match the field's type");
    }
    json item;
    if (!value(*f, f->type, f->message, wire, r, depth, item, where)) {
      return false;
    }
    if (f->repeated) {
      if (!present[index]) {
        slot = json::array();
      }
      slot.push_back(std::move(item));
    } else if (present[index] && slot.is_object() && item.is_object() &&
               f->type == Scalar::Message) {
      slot.update(item);  // a repeated occurrence of a message field merges into it
    } else {
      slot = std::move(item);
    }
    present[index] = true;
  }

  if (m.json_array) {
    out = present[0] ? std::move(values[0]) : json(nullptr);
    return true;
  }
  out = json::object();
  for (std::size_t i = 0; i < m.fields.size(); ++i) {
    const Field& f = m.fields[i];
    if (f.hidden) {
      continue;
    }
    json v;
    if (present[i]) {
      v = std::move(values[i]);
      // omitempty drops zero values, empty slices and empty maps; never a present pointer
      // (which is kept even when it points at a zero) nor a struct.
      const bool droppable = f.go == GoKind::Slice || f.go == GoKind::Map ||
                             (f.go == GoKind::Value && f.type != Scalar::Message);
      if (f.omitempty && droppable && is_zero(v)) {
        continue;
      }
    } else {
      // Absent: the Go field holds its zero value (nil for pointers, slices and maps).
      const bool is_struct =
          f.go == GoKind::Struct || (f.go == GoKind::Value && f.type == Scalar::Message);
      if (f.omitempty && !is_struct) {
        continue;
      }
      if (!zero(f, depth, v)) {
        return false;
      }
    }
    if (f.inline_) {
      if (v.is_object()) {
        for (auto it = v.begin(); it != v.end(); ++it) {
          out[it.key()] = std::move(it.value());
        }
      }
      continue;
    }
    out[f.json_name] = std::move(v);
  }
  return true;
}

}  // namespace apiserver::protobuf::detail
