// The Kubernetes protobuf encoding (Content-Type application/vnd.kubernetes.protobuf) turned into
// the JSON object that a Go client would have sent as application/json: request bodies, as
// kubectl's typed clients send them, and the values kube-apiserver stores in etcd for built-in
// kinds (its default --storage-media-type; the same envelope).
//
// Wire form: the 4 bytes "k8s\0", then a runtime.Unknown message {typeMeta{apiVersion, kind},
// raw, contentEncoding, contentType}; raw holds the object's own protobuf message. The message for
// apiVersion + kind, and every field's number, type, JSON name and Go JSON rules (omitempty,
// pointer or value, inline) come from apiserver/facts/proto.json (facts::proto_json()).
//
// The JSON follows Go's encoding/json of the decoded object: value fields that are zero and
// omitempty are left out, absent pointers are left out (or null without omitempty), value
// structs are always present; bytes are base64; metav1.Time is RFC 3339 in UTC (seconds), null
// when zero; MicroTime has microseconds; Duration is Go's duration text ("1h0m0s");
// resource.Quantity is its string as sent (not canonicalised); IntOrString is a number or a
// string; RawExtension and FieldsV1 embed their JSON bytes. Field numbers the facts do not know
// are skipped. apiVersion and kind are set from typeMeta.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace apiserver::protobuf {

inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";
// Bodies above this size are refused before decoding (Kubernetes refuses requests over 3 MiB).
inline constexpr std::size_t kMaxProtobufBodyBytes = 4 * 1024 * 1024;
// Deepest message nesting accepted; real objects stay under 20.
inline constexpr int kMaxProtobufDepth = 100;
// Most JSON values one body may produce (decoded values plus the zero values Go would emit).
inline constexpr std::size_t kMaxProtobufValues = 1'000'000;

// Decodes one body: the object (a JSON object with apiVersion and kind), or the error, one line
// starting with "protobuf: " that names the message and field where decoding stopped: wrong
// magic, truncated or malformed wire data, a length past the end, nesting deeper than
// kMaxProtobufDepth, a body larger than kMaxProtobufBodyBytes or producing more than
// kMaxProtobufValues values, an apiVersion/kind without protobuf facts, a content encoding other
// than none, a time out of RFC 3339 range, or RawExtension bytes that are not JSON. Never throws
// for any input; thread-safe (the facts are parsed once, on first use, under a function-local
// static).
common::Result<nlohmann::json> decode_k8s_protobuf(std::string_view body);

// Whether `bytes` start with the envelope's "k8s\0" prefix (JSON never does).
inline bool is_k8s_protobuf(std::string_view bytes) {
  return bytes.substr(0, 4) == std::string_view("k8s\0", 4);
}

}  // namespace apiserver::protobuf
