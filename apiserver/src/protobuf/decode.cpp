// The body's envelope: the "k8s\0" prefix and runtime.Unknown, whose apiVersion and kind pick the
// message that decodes `raw` (protobuf_decoder.h).
#include "protobuf/decode.h"

#include <optional>
#include <string>

#include "protobuf/decoder.h"
#include "protobuf/facts.h"
#include "protobuf/go_text.h"
#include "protobuf/wire.h"

namespace apiserver::protobuf {
namespace {

using detail::Decoder;
using detail::Facts;
using detail::proto_facts;
using detail::Reader;
using detail::valid_utf8;
using detail::Wire;
using nlohmann::json;

// runtime.Unknown: 1 typeMeta {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType.
struct Unknown {
  std::string_view api_version;
  std::string_view kind;
  std::string_view raw;
  std::string_view content_encoding;
  std::string_view content_type;
};

// Sets slots[n - 1] to the bytes of each length-delimited field n (1 to count) of `bytes`; the
// error, naming the message `what`, when a field cannot be read.
std::optional<std::string> read_fields(std::string_view bytes, std::string_view* slots,
                                       std::size_t count, const char* what) {
  Reader r(bytes);
  while (!r.done()) {
    auto field = r.field();
    if (!field) {
      return std::string("protobuf: ") + what + ": " + field.error();
    }
    if (field->wire == Wire::Len && field->number >= 1 && field->number <= count) {
      slots[field->number - 1] = field->bytes;
    }
  }
  return std::nullopt;
}

}  // namespace

common::Result<nlohmann::json> decode_k8s_protobuf(std::string_view body) {
  static constexpr std::size_t kMagicSize = 4;
  if (body.size() > kMaxProtobufBodyBytes) {
    return "protobuf: body larger than " + std::to_string(kMaxProtobufBodyBytes) + " bytes";
  }
  if (!is_k8s_protobuf(body)) {
    return std::string("protobuf: body does not start with the \"k8s\\x00\" prefix");
  }
  std::string_view unknown_fields[4];
  if (auto error = read_fields(body.substr(kMagicSize), unknown_fields, 4, "runtime.Unknown")) {
    return std::move(*error);
  }
  std::string_view type_meta[2];
  if (auto error = read_fields(unknown_fields[0], type_meta, 2, "runtime.Unknown.typeMeta")) {
    return std::move(*error);
  }
  Unknown unknown{type_meta[0], type_meta[1], unknown_fields[1], unknown_fields[2],
                  unknown_fields[3]};
  if (!unknown.content_encoding.empty()) {
    return "protobuf: unsupported contentEncoding \"" + valid_utf8(unknown.content_encoding) + "\"";
  }
  if (!unknown.content_type.empty() && unknown.content_type != kProtobufContentType) {
    return "protobuf: unsupported contentType \"" + valid_utf8(unknown.content_type) + "\"";
  }
  if (unknown.kind.empty() || unknown.api_version.empty()) {
    return std::string("protobuf: runtime.Unknown has no apiVersion or kind");
  }
  const Facts& facts = proto_facts();
  const std::string api_version = valid_utf8(unknown.api_version);
  const std::string kind = valid_utf8(unknown.kind);
  auto found = facts.kinds.find(api_version + " " + kind);
  if (found == facts.kinds.end()) {
    return "protobuf: no protobuf message for apiVersion \"" + api_version + "\" kind \"" + kind +
           "\"";
  }
  Decoder decoder;
  json out;
  if (!decoder.message(*found->second, unknown.raw, 1, out)) {
    return decoder.error();
  }
  if (!out.is_object()) {
    return "protobuf: " + found->second->name + " does not decode to a JSON object";
  }
  out["apiVersion"] = api_version;
  out["kind"] = kind;
  return out;
}

}  // namespace apiserver::protobuf
