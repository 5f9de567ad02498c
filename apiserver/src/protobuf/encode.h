// Objects of built-in kinds written in the Kubernetes protobuf encoding, as kube-apiserver stores
// them with its default --storage-media-type (application/vnd.kubernetes.protobuf): the "k8s\0"
// prefix, then runtime.Unknown {typeMeta{apiVersion, kind}, raw}, raw being the object's message.
// The inverse of decode_k8s_protobuf (decode.h) over the same field facts: decoding the result
// gives the object back, minus any field the facts do not know (protobuf has no place for it).
//
// Fields are written in field-number order; a JSON value that is absent or null is not written;
// repeated scalars are written one field each (not packed), maps as entries {1 key, 2 value}.
// The special types take their Go JSON forms back: metav1.Time and MicroTime from RFC 3339,
// Duration from Go's duration text, Quantity as its string, IntOrString by its JSON type,
// RawExtension and FieldsV1 as their JSON's bytes, []byte from base64.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace apiserver::protobuf {

// Whether apiVersion + kind have a protobuf message (the built-in kinds; custom resources and
// kinds outside the facts do not).
bool has_message(std::string_view api_version, std::string_view kind);

// The envelope of `object`, a JSON object with apiVersion and kind; the error, starting with
// "protobuf: ", names the field that cannot be written (a kind without a message, a value of the
// wrong JSON type, a time or duration that does not parse, nesting past kMaxProtobufDepth).
// Never throws; thread-safe.
common::Result<std::string> encode_k8s_protobuf(const nlohmann::json& object);

}  // namespace apiserver::protobuf
