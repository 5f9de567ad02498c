// What kube-apiserver v1.32 (apiextensions-apiserver) does to a custom resource with its CRD
// version's structural schema (spec.versions[].schema.openAPIV3Schema): pruning of unknown
// fields, structural defaulting, and OpenAPI schema validation with upstream's field errors.
//
// Order on every write (and on reads from storage), as upstream: prune() -> apply_defaults() ->
// validate() (validate on writes only).
//
// Threads: a CrdSchema is immutable after parse(); every const method may be called from any
// thread at once. Copies share the parsed tree (cheap to copy).
//
// Texts follow k8s.io/kube-openapi's validator as the CR strategy turns its results into
// field.Errors, e.g.
//   spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"
//   spec.size: Unsupported value: "huge": supported values: "small", "large"
//   spec.name: Required value
//   spec.name: Too long: may not be more than 5 bytes
//   spec.tags: Too many: 4: must have at most 3 items
//   spec.ports[1]: Duplicate value: map[string]interface {}{"port":80}
//
// Error order: upstream walks Go maps (random order); here object properties are visited in
// byte order of their names, which makes the order stable. Within one value the validators run
// in kube-openapi's order: type, string (maxLength, minLength, pattern; first failure only),
// format, number (multipleOf, minimum, maximum), array (items, minItems, maxItems,
// uniqueItems), enum, object (minProperties/maxProperties end the object's checks, then
// additionalProperties values, properties, required). x-kubernetes-list-type errors follow all
// schema errors, as the CR strategy appends them.
//
// Known gaps (not hidden):
// - CEL rules (x-kubernetes-validations) are not evaluated.
// - allOf/anyOf/oneOf/not: of the failing anyOf/oneOf schemas, the errors of the one that ran
//   the most checks are reported; that count approximates kube-openapi's MatchCount.
// - Embedded resources (x-kubernetes-embedded-resource): apiVersion, kind and metadata are kept
//   as they are (never pruned), but their metadata is not coerced and apiVersion/kind are not
//   checked as upstream's objectmeta validation does.
// - pattern runs on RE2 (Go's regexp syntax and linear-time matching); RE2 and Go differ in a few
//   corners: RE2 accepts \C, and Go 1.22's (?<name>...) is rejected here.
// - format: int32, int64, float and double are stripped as upstream strips unsupported formats
//   (so they check nothing, as upstream); date-time, date, byte, uuid, uuid3/4/5 and password are
//   checked; the other formats upstream supports (email, hostname, ipv4, ipv6, cidr, mac, uri,
//   isbn*, creditcard, ssn, hexcolor, rgbcolor, bsonobjectid, duration) are accepted unchecked.
// - json() returns the schema as given; building the published OpenAPI document from it is the
//   caller's job.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "registry/objects.h"  // FieldError

namespace apiserver::registry {

class CrdSchema {
 public:
  // Why a schema is not usable: `message` is for logs; `field_error` is set for the failures
  // upstream's CRD validation reports as a field error (an invalid pattern).
  struct Error {
    std::string message;
    std::optional<FieldError> field_error;
  };

  // Parses a CRD version's spec.versions[].schema.openAPIV3Schema. Fails when it is not a usable
  // structural schema: a node that is not an object, a missing or unknown type (allowed empty
  // only with x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields), an array
  // without one items schema, properties together with additionalProperties,
  // additionalProperties false, $ref, a pattern Go's regexp rejects, malformed
  // enum/required/x-kubernetes-list-type/x-kubernetes-list-map-keys, nesting deeper than
  // kMaxSchemaDepth (registry/walk_depth.h). Walks over values stop at kMaxWalkDepth. A field
  // error's field is under the CRD version's `schema`, e.g.
  //   openAPIV3Schema.properties[a].pattern: Invalid value: "+": must be a valid regular
  //   expression, but isn't: error parsing regexp: missing argument to repetition operator: `+`
  // `field_root` names the schema in errors (the CRD validation passes
  // "spec.versions[0].schema.openAPIV3Schema").
  static common::Result<CrdSchema, Error> parse(const nlohmann::json& open_api_v3_schema,
                                                const std::string& field_root = "openAPIV3Schema");

  // Drops every field the schema does not declare (kept under
  // x-kubernetes-preserve-unknown-fields; inside x-kubernetes-embedded-resource objects
  // apiVersion, kind and metadata are kept). apiVersion, kind and metadata at the root are never
  // pruned (metadata is the server's). Then drops null values of non-nullable fields that have no
  // default (upstream's coercion step right after pruning). Returns the pruned paths sorted, as
  // upstream: `spec.foo`, `spec.items[0].bar` -> the server says `unknown field "spec.foo"`.
  std::vector<std::string> prune(nlohmann::json& object) const;

  // Structural defaulting: sets `default` values of missing fields (and of null list items / map
  // values whose schema is not nullable), as upstream applies them on create, update and read.
  // A default set for a null list item or map value is not itself defaulted further, as upstream.
  void apply_defaults(nlohmann::json& object) const;

  // Schema validation of the whole object (after pruning and defaulting); see the file comment
  // for the texts and order. Empty when valid. Render with render_field_errors.
  std::vector<FieldError> validate(const nlohmann::json& object) const;

  // validate() for an update from `old`, with upstream's validation ratcheting
  // (registry/crd_schema_ratcheting.h): the errors of values unchanged from `old` are dropped, and
  // x-kubernetes-list-type errors are reported only when `old` has none.
  std::vector<FieldError> validate_update(const nlohmann::json& object,
                                          const nlohmann::json& old) const;

  // The schema as given to parse().
  const nlohmann::json& json() const;

  struct Node;  // the parsed tree (crd_schema_node.h)
  const Node& root() const { return *root_; }

 private:
  CrdSchema() = default;
  std::shared_ptr<const Node> root_;
  std::shared_ptr<const nlohmann::json> source_;
};

// Go's fmt %v of a float64 (strconv 'g', shortest): 1.5, 100000, 1e+06, 1e-05.
std::string go_format_float(double value);

}  // namespace apiserver::registry
