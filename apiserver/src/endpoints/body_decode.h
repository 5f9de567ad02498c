// Request bodies decoded as kube-apiserver's JSON serializer decodes them: one bounded parse of
// client JSON (Go's syntax check and nesting limit first, then the document), the apiVersion and
// kind read the way the serializer reads them, and the texts the create and update handlers wrap
// decode failures in:
//
//   the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind;
//     json parse error: invalid character 'n' looking for beginning of object key string ({n ...)
//   Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to
//     (core.ConfigMap): unknown conversion
//   Foo in version "v1" cannot be handled as a ConfigMap: no kind "Foo" is registered for version
//     "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "common/result.h"
#include "errors/result.h"
#include "registry/field_validation.h"

namespace apiserver::endpoints {

// Parses client JSON. The error is Go's text: the scanner's syntax error (nesting deeper than
// kGoMaxNestingDepth included). Never recursive and never throws: the parse is
// iterative and the depth is bounded before it starts. Invalid UTF-8 and unpaired surrogate
// escapes in strings become U+FFFD, as Go's decoder makes them.
common::Result<nlohmann::json> parse_client_json(std::string_view text);

// The body as upstream's handlers quote it in decode errors: "<empty>", the first 30 bytes of a
// body that starts with '{' (and " ..." when cut), else those bytes in hex.
std::string summarize_body(std::string_view body);

using registry::GroupVersionKind;
using registry::parse_group_version;

// What the JSON serializer reads before it decodes: apiVersion and kind, typed as strings.
// `api_version`/`kind` are empty when absent or null. nullopt when readable, else Go's text
// (`json: cannot unmarshal array into Go value of type struct { ... }`).
std::optional<std::string> read_type_meta(const nlohmann::json& document, std::string& api_version,
                                          std::string& kind);

// A create or update body (JSON, YAML or protobuf) decoded into the resource's kind; kind and
// apiVersion are set and metadata is an object. The error is kube-apiserver's answer.
errors::Result<nlohmann::json> decode_object_body(const http::Request& request,
                                                  const registry::Resource& r,
                                                  const registry::FieldValidator& validator);

// The errors of the strict decodes kube-apiserver runs on a patch before it applies it, when
// fieldValidation is Strict or Warn (the default): a JSON patch into its list of operations
// (`json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp`, or `... Go
// struct field jsonPatchOp.path of type string`), a merge patch into a map (`json: cannot
// unmarshal array into Go value of type map[string]interface {}`). nullopt when the shape decodes.
std::optional<std::string> json_patch_shape_error(const nlohmann::json& patch);
std::optional<std::string> merge_patch_shape_error(const nlohmann::json& patch);

// The 415 UnsupportedMediaType Status for a body that is neither JSON, YAML nor protobuf.
errors::Status unsupported_body_type();

// The lower-cased media type of a Content-Type or Accept entry, without parameters.
std::string media_type(const std::string& value);

}  // namespace apiserver::endpoints
