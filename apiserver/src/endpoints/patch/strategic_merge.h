// application/strategic-merge-patch+json for built-in kinds, as kube-apiserver v1.32 applies it:
// k8s.io/apimachinery/pkg/util/strategicpatch StrategicMergeMapPatch with the kind's Go struct as
// schema (PatchMetaFromStruct), here read from the OpenAPI facts through registry::SchemaIndex
// (x-kubernetes-patch-strategy, x-kubernetes-patch-merge-key).
//
// What the merge does (server side: parallel lists merged, unmatched nulls ignored):
// - Objects merge key by key; `null` deletes a key; scalars replace; a value whose JSON type
//   differs from the original's, or for a key the original lacks, replaces it without its null
//   members and without maps holding `$patch` (a value that is such a map removes the key).
//   `$deleteFromPrimitiveList/<f>` for such a field does nothing.
// - Lists replace, unless the field's patch strategy is "merge":
//   - lists of objects merge item by item on the patch merge key (containers by name, ports by
//     containerPort, env by name, volumes by name, ownerReferences by uid, ...);
//   - lists of scalars (finalizers) become the union, without duplicates.
//   Order of a merged list: patch items first in patch order, server-only items interleaved where
//   the live list had them relative to patch items that were already there. So a container that
//   is new to the list comes out FIRST, e.g. live [a b] + patch [c] = [c a b]; with
//   `$setElementOrder/<list>` the listed order wins and unlisted server items keep their place.
// - Field strategy "replace" (PodDisruptionBudget spec.selector) replaces an object whole.
// - Directives:
//   `$patch: replace` in an object: the object becomes the patch object (minus the directive);
//                     in a list item: the list becomes the patch's other items.
//   `$patch: delete`  in an object: the object becomes {}; in a list item: every live item with
//                     that merge key is removed (the item must carry the merge key).
//   `$patch: merge`   is rejected, as upstream: "unknown patch type: merge in map: ..." in an
//                     object, "merging lists cannot yet be specified in the patch" in a list.
//   `$retainKeys: [k...]`   keys of the live object not listed are dropped, then the rest merges;
//                     every non-null patch key must be listed (else 400). Applied wherever it
//                     appears, whatever the field's strategy says, as upstream.
//   `$setElementOrder/<f>: [...]`   the order of list <f> ([{mergeKey: v}...] or scalars).
//   `$deleteFromPrimitiveList/<f>: [...]`   values removed from scalar list <f> (merge strategy).
//
// Errors (SmpError::kind) and kube-apiserver's answer, from
// staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (applyPatchToObject →
// interpretStrategicMergePatchError) and responsewriters/status.go (ErrorToAPIStatus):
//   BadRequest    → 400, reason BadRequest, message = the text:
//                     "invalid patch format of primitive list"      ($deleteFromPrimitiveList key
//                                                                    without "/<field>")
//                     "invalid patch format of retainKeys"          (not a list, or a patch key
//                                                                    missing from the list)
//                     "invalid patch format of setElementOrder list" ($setElementOrder key
//                                                                    without "/<field>")
//                     "json: cannot unmarshal array into Go value of type map[string]interface {}"
//                                                                   (patch body not an object)
//   Unprocessable → 422, reason Invalid, message "the server rejected our request due to an
//                   error in our request", details {} — upstream drops the text
//                   ("lists of lists are not supported") with NewGenericServerResponse.
//   Internal      → 500, no reason (StatusReasonUnknown), message = the text. Every other
//                   strategicpatch error is returned unconverted and becomes this, e.g.
//                     "map: map[image:nginx] does not contain declared merge key: name"
//                     "unknown patch type: foo in map: map[$patch:foo name:app]"
//                     "merging lists cannot yet be specified in the patch"
//                     "expected a []interface {}, but received a string"
//                     "list element types are not identical: [[a] [1]]"
//                     "The order in patch list:\n[...]\n doesn't match $setElementOrder list:\n
//                      [...]\n"
//                     "unable to find api field in struct PodSpec for the json field \"x\""
//                     "expected slice or array type, but got: struct"
//                   Values are rendered as Go's fmt %v renders map[string]interface{} (keys
//                   sorted, `map[k:v k2:v2]`, lists `[a b]`, null `<nil>`); the directive in
//                   "unknown patch type" with %s (a number shows as `%!s(int64=5)`).
//   Panic         → inputs on which upstream's code panics (e.g. `$setElementOrder` on a list of
//                   objects without a merge key, `$retainKeys` holding an object, a merge list
//                   whose first item is null). kube-apiserver's panic filter answers 500,
//                   Content-Type text/plain, body kPanicResponseBody. `message` names the Go
//                   runtime error for logs.
// to_http_status() gives code, reason and message for each kind.
//
// Not covered (documented differences):
// - The typed decode after the merge (FromUnstructuredWithValidation: unknown fields dropped or
//   reported, type errors → 422 "Invalid value" on field "patch", then defaulting) is the
//   caller's. Until then the result may hold keys upstream's decode drops: unknown fields.
// - Upstream's original is a typed object, so it never holds unknown fields. An original that
//   does (this sandbox stores JSON) merges those fields like JSON merge patch instead of failing;
//   a patch-driven `$setElementOrder/<unknown>` fails as upstream does.
// - Go's map iteration is random: when one object holds several independent errors upstream
//   may report any of them; here keys are visited in sorted order. Contradictory patches that
//   both add and `$deleteFromPrimitiveList` the same value: the deletion runs first here.
// - Numbers: integers compare with integers only and floats with floats (Go's int64 vs
//   float64 from UnmarshalCaseSensitivePreserveInts); integers above int64 print as floats.
// - Go pointer fields are not visible in the facts: `$setElementOrder/<f>` naming a field that is
//   not a list fails with "expected slice or array type, but got: struct" even where upstream,
//   for a pointer field, would go on.
// - Custom resources: kube-apiserver answers 415 for SMP on them; not handled here (the caller
//   must not call this for CRDs).
//
// Thread-safety: a pure function; safe to call concurrently (SchemaIndex is immutable).
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "registry/schema_index.h"

namespace apiserver::endpoints::patch {

enum class SmpErrorKind {
  BadRequest,     // 400
  Unprocessable,  // 422
  Internal,       // 500 with a Status
  Panic,          // 500 text/plain
};

struct SmpError {
  SmpErrorKind kind = SmpErrorKind::Internal;
  // Upstream's error text (for Panic: the Go runtime error, for logs only).
  std::string message;
};

// The body kube-apiserver writes after a panic in a handler (text/plain; charset=utf-8).
inline constexpr std::string_view kPanicResponseBody =
    "This request caused apiserver to panic. Look in the logs for details.\n";

struct SmpHttpStatus {
  int code = 500;
  std::string reason;          // metav1.Status reason; empty = omitted (StatusReasonUnknown)
  std::string message;         // metav1.Status message
  bool empty_details = false;  // true: the Status carries "details": {}
  bool plain_text = false;     // true: no Status; answer kPanicResponseBody as text/plain
};

// How kube-apiserver v1.32 answers `error` (see the table above).
SmpHttpStatus to_http_status(const SmpError& error);

// Applies strategic merge patch `patch` to `original` (the live object, a JSON object) and
// returns the merged object, or the error kube-apiserver would report.
//
// `schema` is the kind's definition (SchemaIndex::kind(group, version, kind)) walked with
// `index`; nullptr, or a field the schema does not describe, merges like JSON merge patch
// (objects merged, lists replaced) while still honouring the directives. `patch` null is a
// no-op (as Go's decoder leaves the map nil); a patch that is not an object is a BadRequest.
// A non-object `original` is treated as {}.
//
// Pure: neither argument is modified. Linear in the size of the objects; merged lists cost
// O(n² log n) in their length, as upstream (positions are looked up by linear search).
std::variant<nlohmann::json, SmpError> apply_strategic_merge_patch(
    const registry::SchemaIndex& index, const nlohmann::json* schema,
    const nlohmann::json& original, const nlohmann::json& patch);

}  // namespace apiserver::endpoints::patch
