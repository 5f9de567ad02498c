// Server-side field validation (fieldValidation=Strict|Warn|Ignore) as pure functions.
//
// kube-apiserver decodes a built-in object with a strict JSON decoder and collects, without
// failing the decode, every unknown field and every duplicate field, in the order the decoder
// meets them. With Strict the list becomes one 400 BadRequest; with Warn each item becomes a
// `Warning` header; with Ignore nothing is checked. This file reproduces that list from the
// committed OpenAPI facts (facts::schemas_json()) instead of Go struct tags.
//
// What is checked, and how it maps to upstream:
// - Every object whose schema has properties (a Go struct): keys must match a property exactly
//   (case-sensitive); apiVersion and kind are always known at the top level. Metadata and status
//   are checked like spec.
// - Maps (additionalProperties): any key is known; the values are checked against the value
//   schema. Duplicate keys are reported.
// - Lists: each item is checked; its path gets the index, e.g. `spec.containers[0].foo`.
// - Opaque values are not looked into: IntOrString, Quantity, Time, RawExtension (embedded
//   objects), FieldsV1, the CRD JSON / JSONSchemaPropsOr* types, anything marked
//   x-kubernetes-preserve-unknown-fields / x-kubernetes-embedded-resource /
//   x-kubernetes-int-or-string, and any object schema with neither properties nor
//   additionalProperties (Go types with their own UnmarshalJSON). The empty Go structs
//   CustomResourceSubresourceStatus and StorageVersionSpec are the exception: every key in them
//   is unknown, as upstream.
// - A field that is unknown is not looked into, and a duplicated unknown field is reported once,
//   as unknown. Identical messages are reported once; at most 100 JSON problems are kept.
// - A value whose JSON type does not fit the schema (an object where a string is expected) is
//   not looked into. Upstream fails the whole decode with a type error instead: inspect() gives
//   that error (DecodeError) beside the field problems.
//
// Texts (kube-apiserver v1.32, sigs.k8s.io/json and sigs.k8s.io/yaml):
//   unknown field "spec.template.spec.containers[0].foo"
//   duplicate field "metadata.labels.app"
//   line 12: key "replicas" already set in map          (YAML bodies, see yaml_duplicate_keys)
// Paths join keys with '.', list items as [i], and are quoted like Go's %q.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace apiserver::registry {

// Why a body does not decode into its kind's Go type, as encoding/json and the types with their
// own decoders report it. Only the first error counts, as upstream: the first value of a wrong
// JSON type, unless a Quantity, Time, MicroTime or IntOrString fails later (those end the decode).
struct DecodeError {
  // Go's text: `json: cannot unmarshal array into Go struct field ConfigMap.data of type string`,
  // `illegal base64 data at input byte 3`, a Quantity's or a time's parse error.
  std::string message;
  // The same without the struct field context (`json: cannot unmarshal array into Go value of
  // type string`), as a type's own decoder called on the value alone says it.
  std::string bare_message;
  // The value's path as field problems print it ("data.a", "spec.containers[0].ports") and its
  // RFC 6901 pointer within the body ("/data/a").
  std::string path;
  std::string pointer;
  // What the schema wants there in structured-merge-diff's words ("string", "numeric",
  // "boolean", "map", "list"); empty for values only their own decoder rejects.
  std::string expected;
};

struct FieldReport {
  std::optional<DecodeError> decode_error;  // when set, upstream answers with it alone
  std::vector<std::string> problems;        // unknown and duplicate fields, as check()
};

class FieldValidator {
 public:
  // Builds the schema index from facts::schemas_json(). Throws (start-up only) when the facts do
  // not parse. Takes a few milliseconds: build one and share it.
  FieldValidator();
  // Same from a given {"definitions": {...}} document (tests).
  explicit FieldValidator(std::string_view schemas_json);
  ~FieldValidator();
  FieldValidator(const FieldValidator&) = delete;
  FieldValidator& operator=(const FieldValidator&) = delete;

  // True when group/version/kind names a definition (x-kubernetes-group-version-kind).
  bool knows(const std::string& group, const std::string& version, const std::string& kind) const;

  // The unknown and duplicate fields of `body`, a JSON object of the given kind, in
  // kube-apiserver's order and wording. Empty when there is nothing to report, when the kind is
  // not known, and when `body` is not valid JSON (decode errors are the caller's to report; Go's
  // decoder also reports no strict error for a body that does not parse).
  //
  // yaml_body_already_converted_json: the body is the JSON made from a YAML request body. Upstream
  // decodes that JSON after sigs.k8s.io/yaml sorted every object's keys and dropped duplicate keys
  // (the last one wins), so keys are visited in sorted (byte) order and no duplicate field is
  // reported; YAML duplicate keys come from yaml_duplicate_keys() on the original text and go
  // first.
  //
  // Thread-safe: const and without shared mutable state. Runs in time linear in the body.
  std::vector<std::string> check(const std::string& group, const std::string& version,
                                 const std::string& kind, std::string_view body,
                                 bool yaml_body_already_converted_json = false) const;

  // check() plus the decode error: the same single walk. A body that does not parse, or of a
  // kind not known, gives an empty report.
  FieldReport inspect(const std::string& group, const std::string& version,
                      const std::string& kind, std::string_view body,
                      bool yaml_body_already_converted_json = false) const;

 private:
  struct Index;
  std::unique_ptr<Index> index_;
};

// The duplicate keys of a YAML document as sigs.k8s.io/yaml's strict conversion (yaml.v2) reports
// them: `line <n>: key "<k>" already set in map`, n being the 1-based line where the repeated
// key's value starts, in decode order (a value's own duplicates before its key's). Keys that YAML
// resolves to integers or booleans print bare (`key 1`), null keys as `<nil>`. Empty when the text
// has no duplicates or does not parse.
std::vector<std::string> yaml_duplicate_keys(std::string_view yaml_text);

// The 400 BadRequest message for fieldValidation=Strict:
//   <kind> in version "<version>" cannot be handled as a <kind>: strict decoding error: <items>
// items joined with ", ". YAML duplicate-key problems (the `line N: ...` items) are first merged
// into one item `yaml: unmarshal errors:\n  line 5: ...\n  line 12: ...`, as upstream's single
// YAML error. `kind`/`version` are those of the body (its apiVersion's version). Precondition:
// problems is not empty.
std::string strict_error_message(const std::string& kind, const std::string& version,
                                 const std::vector<std::string>& problems);

// The `Warning` header values for fieldValidation=Warn, in order: `299 - "<text>"` with `"` and `\`
// escaped by a backslash. Like kube-apiserver's warning recorder: identical texts once, a text
// with control characters or invalid UTF-8 dropped, and once the texts exceed 4096 runes in total
// every text is cut to 256 runes and texts after the limit are dropped.
std::vector<std::string> warning_headers(const std::vector<std::string>& problems);

}  // namespace apiserver::registry
