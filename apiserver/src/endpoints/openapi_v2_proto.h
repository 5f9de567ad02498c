// /openapi/v2 in protobuf: the Swagger 2.0 document as the gnostic `openapi.v2.Document` message
// (OpenAPIv2.proto of google/gnostic-models). kube-apiserver serves this form for
// `Accept: application/com.github.proto-openapi.spec.v2[@.]v1.0+protobuf`; client-go's
// OpenAPISchema() asks for it, and kubectl needs it for `explain --output=plaintext-openapiv2` and
// client-side schema validation.
//
// The message is what gnostic's compiler makes of the same JSON (upstream parses its JSON document
// with it and marshals the result):
// - JSON objects used as maps (paths, definitions, properties, responses, securityDefinitions,
//   scopes, ...) become repeated (name, value) messages in the object's key order.
// - Keys starting with "x-" become `vendor_extension` NamedAny entries whose Any carries only
//   `yaml`: the value as YAML text ending in a newline; Any.value stays unset, as gnostic leaves it
//   when no extension handler is registered. `default`, `enum` and `example` values take the same
//   Any form. Plain strings are written as plain scalars ("merge\n"), anything that would read
//   back differently, and objects and arrays, as JSON text (JSON is YAML).
// - Schema `type` is a TypeItem (a string or a list), `items` an ItemsItem (one schema, or one
//   per element of a list), `additionalProperties` a schema or a bool, response `schema` a
//   SchemaItem (a FileSchema when its type is "file").
// - A parameter with "$ref" is a JsonReference; "in": "body" a BodyParameter; "header",
//   "formData", "query" and "path" the matching NonBodyParameter sub-schema. A response with
//   "$ref" is a JsonReference; a security definition picks its message by `type` (and `flow`).
// - Proto3 zero values (empty strings, false, 0) are not written, as Go's proto.Marshal leaves
//   them out; empty objects and lists that map to a message are written as empty messages.
//
// Skipped rather than failing (gnostic would reject such a document; ours never holds one):
// keys the message has no field for, values of the wrong JSON type for their field, parameters
// whose "in" is unknown, security definitions of an unknown type, and anything nested deeper
// than kMaxOpenApiV2Depth messages.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace apiserver::endpoints {

// Deepest message nesting written; deeper values are left out. Kubernetes documents stay under 20.
inline constexpr int kMaxOpenApiV2Depth = 100;

// The serialized Document for `document` (a Swagger 2.0 JSON object; anything else gives an empty
// message). Never throws except std::bad_alloc; the result is smaller than the JSON text of
// `document` for documents shaped like Kubernetes' (names and values are written once, without
// JSON punctuation). Thread-safe: no shared state.
std::string encode_openapi_v2(const nlohmann::json& document);

}  // namespace apiserver::endpoints
