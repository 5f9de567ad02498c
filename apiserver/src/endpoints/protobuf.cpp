#include "endpoints/protobuf.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "apiserver/facts.h"
#include "common/base64.h"
#include "common/rfc3339.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

// ---- the facts, parsed once ----

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

[[noreturn]] void facts_broken(const std::string& what) {
  std::cerr << "apiserver: proto facts are broken: " << what << std::endl;
  std::abort();
}

Scalar scalar_of(const std::string& name) {
  static const std::unordered_map<std::string, Scalar> kScalars = {
      {"int32", Scalar::Int32},       {"int64", Scalar::Int64},       {"uint32", Scalar::Uint32},
      {"uint64", Scalar::Uint64},     {"bool", Scalar::Bool},         {"enum", Scalar::Enum},
      {"string", Scalar::String},     {"bytes", Scalar::Bytes},       {"double", Scalar::Double},
      {"float", Scalar::Float},       {"fixed32", Scalar::Fixed32},   {"fixed64", Scalar::Fixed64},
      {"sfixed32", Scalar::Sfixed32}, {"sfixed64", Scalar::Sfixed64}, {"sint32", Scalar::Sint32},
      {"sint64", Scalar::Sint64}};
  auto it = kScalars.find(name);
  return it == kScalars.end() ? Scalar::Message : it->second;
}

Special special_of(const std::string& name) {
  static const std::unordered_map<std::string, Special> kSpecials = {
      {"k8s.io.apimachinery.pkg.apis.meta.v1.Time", Special::Time},
      {"k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime", Special::MicroTime},
      {"k8s.io.apimachinery.pkg.apis.meta.v1.Duration", Special::Duration},
      {"k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1", Special::FieldsV1},
      {"k8s.io.apimachinery.pkg.api.resource.Quantity", Special::Quantity},
      {"k8s.io.apimachinery.pkg.api.resource.QuantityValue", Special::Quantity},
      {"k8s.io.apimachinery.pkg.util.intstr.IntOrString", Special::IntOrString},
      {"k8s.io.apimachinery.pkg.runtime.RawExtension", Special::RawExtension}};
  auto it = kSpecials.find(name);
  return it == kSpecials.end() ? Special::None : it->second;
}

GoKind go_kind_of(const std::string& go) {
  if (go == "pointer") {
    return GoKind::Pointer;
  }
  if (go == "struct") {
    return GoKind::Struct;
  }
  if (go == "slice") {
    return GoKind::Slice;
  }
  if (go == "map") {
    return GoKind::Map;
  }
  return GoKind::Value;
}

std::unique_ptr<Facts> load_facts() {
  auto facts = std::make_unique<Facts>();
  json doc;
  try {
    doc = json::parse(facts::proto_json());
  } catch (const json::exception& e) {
    facts_broken(e.what());
  }
  const json& messages = doc.at("messages");
  for (auto it = messages.begin(); it != messages.end(); ++it) {
    auto m = std::make_unique<Message>();
    m->name = it.key();
    m->special = special_of(it.key());
    m->json_array = it->value("json", "") == "array";
    facts->messages.emplace(it.key(), std::move(m));
  }
  auto resolve = [&](const std::string& type, const std::string& where) -> const Message* {
    auto found = facts->messages.find(type);
    if (found == facts->messages.end()) {
      facts_broken(where + " names unknown message " + type);
    }
    return found->second.get();
  };
  for (auto it = messages.begin(); it != messages.end(); ++it) {
    Message& m = *facts->messages.at(it.key());
    for (const json& f : it->at("fields")) {
      Field field;
      field.number = f.at("number").get<std::uint32_t>();
      const std::string name = f.at("name").get<std::string>();
      field.json_name = f.value("json", name);
      field.hidden = field.json_name == "-";
      field.inline_ = f.value("inline", false);
      if (field.inline_) {
        field.json_name.clear();
      }
      field.omitempty = f.value("omitempty", false);
      field.repeated = f.value("repeated", false);
      field.go = go_kind_of(f.value("go", ""));
      const std::string type = f.at("type").get<std::string>();
      const std::string where = m.name + "." + name;
      if (type == "map") {
        field.is_map = true;
        field.map_key = scalar_of(f.at("map_key").get<std::string>());
        const std::string value = f.at("map_value").get<std::string>();
        field.type = scalar_of(value);
        if (field.map_key == Scalar::Message || field.map_key == Scalar::Bytes) {
          facts_broken(where + ": unsupported map key");
        }
      } else {
        field.type = scalar_of(type);
      }
      if (field.type == Scalar::Message) {
        field.message = resolve(field.is_map ? f.at("map_value").get<std::string>() : type, where);
      }
      m.fields.push_back(std::move(field));
    }
    std::sort(m.fields.begin(), m.fields.end(),
              [](const Field& a, const Field& b) { return a.number < b.number; });
    if (m.json_array && (m.fields.size() != 1 || !m.fields[0].repeated)) {
      facts_broken(m.name + ": array message without one repeated field");
    }
  }
  const json& kinds = doc.at("kinds");
  for (auto it = kinds.begin(); it != kinds.end(); ++it) {
    facts->kinds.emplace(it.key(), resolve(it->get<std::string>(), it.key()));
  }
  return facts;
}

const Facts& proto_facts() {
  static const std::unique_ptr<Facts> facts = load_facts();
  return *facts;
}

// ---- wire reading ----

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

  // Reads the next field: its number and wire type, and its value (`v` for varint and fixed
  // fields, `s` for length-delimited ones). On failure `problem` says what went wrong.
  bool field(std::uint64_t& number, Wire& wire, std::uint64_t& v, std::string_view& s,
             std::string& problem) {
    std::uint64_t tag = 0;
    if (!varint(tag)) {
      problem = "truncated tag";
      return false;
    }
    number = tag >> 3;
    wire = static_cast<Wire>(tag & 7);
    bool ok = false;
    switch (wire) {
      case Wire::Varint:
        ok = varint(v);
        break;
      case Wire::Fixed64:
        ok = fixed(8, v);
        break;
      case Wire::Fixed32:
        ok = fixed(4, v);
        break;
      case Wire::Len:
        ok = length_delimited(s);
        break;
      default:
        problem = "unsupported wire type";
        return false;
    }
    if (!ok) {
      problem = "truncated field " + std::to_string(number);
    }
    return ok;
  }

 private:
  const char* p_;
  const char* end_;
};

// ---- JSON value helpers ----

// Go's JSON encoder writes invalid UTF-8 as U+FFFD; doing the same here also keeps
// nlohmann::json::dump from throwing later.
std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<std::uint8_t>(s[i]);
    std::size_t len = 0;
    std::uint32_t min = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0) {
      len = 2, min = 0x80, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, min = 0x800, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, min = 0x10000, cp = c & 0x07;
    }
    bool ok = len != 0 && i + len <= s.size();
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto cc = static_cast<std::uint8_t>(s[i + k]);
      ok = (cc & 0xC0) == 0x80;
      cp = cp << 6 | (cc & 0x3F);
    }
    ok = ok && cp >= min && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

// Go's time.Duration.String().
std::string go_duration(std::int64_t nanos) {
  if (nanos == 0) {
    return "0s";
  }
  const bool negative = nanos < 0;
  std::uint64_t u =
      negative ? 0 - static_cast<std::uint64_t>(nanos) : static_cast<std::uint64_t>(nanos);
  // Fraction digits of v / 10^prec without trailing zeros, then the integer part.
  auto with_fraction = [](std::uint64_t v, int prec) {
    std::string frac;
    bool printed = false;
    for (int i = 0; i < prec; ++i) {
      const auto digit = static_cast<char>('0' + v % 10);
      printed = printed || digit != '0';
      if (printed) {
        frac.insert(frac.begin(), digit);
      }
      v /= 10;
    }
    return std::to_string(v) + (frac.empty() ? "" : "." + frac);
  };
  std::string out;
  if (u < 1000000000ULL) {
    if (u < 1000ULL) {
      out = std::to_string(u) + "ns";
    } else if (u < 1000000ULL) {
      out = with_fraction(u, 3) + "\xC2\xB5s";
    } else {
      out = with_fraction(u, 6) + "ms";
    }
  } else {
    out = with_fraction(u % 60000000000ULL, 9) + "s";
    u /= 60000000000ULL;
    if (u > 0) {
      out = std::to_string(u % 60) + "m" + out;
      u /= 60;
      if (u > 0) {
        out = std::to_string(u) + "h" + out;
      }
    }
  }
  return negative ? "-" + out : out;
}

// ---- decoding ----

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
    std::uint64_t number = 0;
    Wire wire = Wire::Varint;
    std::uint64_t v = 0;
    std::string_view s;
    std::string problem;
    if (!r.field(number, wire, v, s, problem)) {
      return fail(m.name + ": " + problem);
    }
    if (number >= 1 && number <= 3) {
      seen[number] = true;
      ints[number - 1] = v;
      texts[number] = s;
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

// runtime.Unknown: 1 typeMeta {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType.
struct Unknown {
  std::string_view api_version;
  std::string_view kind;
  std::string_view raw;
  std::string_view content_encoding;
  std::string_view content_type;
};

bool read_fields(std::string_view bytes, std::string_view* slots, std::size_t count,
                 const char* what, std::string& error) {
  Reader r(bytes);
  while (!r.done()) {
    std::uint64_t number = 0;
    Wire wire = Wire::Varint;
    std::uint64_t ignored = 0;
    std::string_view s;
    std::string problem;
    if (!r.field(number, wire, ignored, s, problem)) {
      error = std::string("protobuf: ") + what + ": " + problem;
      return false;
    }
    if (wire == Wire::Len && number >= 1 && number <= count) {
      slots[number - 1] = s;
    }
  }
  return true;
}

}  // namespace

std::optional<nlohmann::json> decode_k8s_protobuf(std::string_view body, std::string& error) {
  static constexpr std::string_view kMagic("k8s\0", 4);
  if (body.size() > kMaxProtobufBodyBytes) {
    error = "protobuf: body larger than " + std::to_string(kMaxProtobufBodyBytes) + " bytes";
    return std::nullopt;
  }
  if (body.substr(0, kMagic.size()) != kMagic) {
    error = "protobuf: body does not start with the \"k8s\\x00\" prefix";
    return std::nullopt;
  }
  std::string_view unknown_fields[4];
  if (!read_fields(body.substr(kMagic.size()), unknown_fields, 4, "runtime.Unknown", error)) {
    return std::nullopt;
  }
  std::string_view type_meta[2];
  if (!read_fields(unknown_fields[0], type_meta, 2, "runtime.Unknown.typeMeta", error)) {
    return std::nullopt;
  }
  Unknown unknown{type_meta[0], type_meta[1], unknown_fields[1], unknown_fields[2],
                  unknown_fields[3]};
  if (!unknown.content_encoding.empty()) {
    error =
        "protobuf: unsupported contentEncoding \"" + valid_utf8(unknown.content_encoding) + "\"";
    return std::nullopt;
  }
  if (!unknown.content_type.empty() && unknown.content_type != kProtobufContentType) {
    error = "protobuf: unsupported contentType \"" + valid_utf8(unknown.content_type) + "\"";
    return std::nullopt;
  }
  if (unknown.kind.empty() || unknown.api_version.empty()) {
    error = "protobuf: runtime.Unknown has no apiVersion or kind";
    return std::nullopt;
  }
  const Facts& facts = proto_facts();
  const std::string api_version = valid_utf8(unknown.api_version);
  const std::string kind = valid_utf8(unknown.kind);
  auto found = facts.kinds.find(api_version + " " + kind);
  if (found == facts.kinds.end()) {
    error = "protobuf: no protobuf message for apiVersion \"" + api_version + "\" kind \"" + kind +
            "\"";
    return std::nullopt;
  }
  Decoder decoder;
  json out;
  if (!decoder.message(*found->second, unknown.raw, 1, out)) {
    error = decoder.error();
    return std::nullopt;
  }
  if (!out.is_object()) {
    error = "protobuf: " + found->second->name + " does not decode to a JSON object";
    return std::nullopt;
  }
  out["apiVersion"] = api_version;
  out["kind"] = kind;
  return out;
}

}  // namespace apiserver::endpoints
