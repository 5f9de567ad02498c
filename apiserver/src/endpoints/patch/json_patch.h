// RFC 6902 JSON Patch (Content-Type application/json-patch+json) as kube-apiserver v1.32 applies
// it: with gopkg.in/evanphx/json-patch.v4 v4.12.0, behind the checks of applyJSPatch in
// k8s.io/apiserver/pkg/endpoints/handlers/patch.go. Pure functions, no I/O, thread-safe.
//
// Error → response, as kube-apiserver answers (PatchError below carries all of it):
//   400 BadRequest   the body is not a JSON array of operation objects (jsonpatch.DecodePatch
//                    fails); message = Go's decode error, e.g.
//                    `json: cannot unmarshal object into Go value of type jsonpatch.Patch`.
//                    With fieldValidation=Strict|Warn the strict pre-decode fails first, see
//                    json_patch_strict_errors.
//   413 RequestEntityTooLarge   more than kMaxJsonPatchOperations operations; message
//                    `Request entity too large: The allowed maximum operations in a JSON patch is
//                    10000, got 10001`.
//   422 Invalid      any failure while applying (failed test, missing path, bad index, unknown
//                    op, missing field, copy size limit). kube-apiserver builds this with
//                    errors.NewGenericServerResponse(422, ..., err.Error(), 0, false), which DROPS
//                    the library text: Status.message is always `the server rejected our request
//                    due to an error in our request`, reason Invalid, `"details": {}`. The library
//                    text (e.g. `testing value /a/b failed: test failed`) is kept in
//                    PatchError::detail for logs and tests.
//
// Behaviour of evanphx v4 that is reproduced on purpose (clients observe it through kube):
// - Pointers split on '/', tokens unescaped ~1 → '/', then ~0 → '~'; other '~' sequences stay.
//   A path without a leading '/' is split the same way ("a/b" addresses member b of the root).
// - Array indices are Go's strconv.Atoi: leading '+', '-' and zeros are accepted; negative
//   indices count from the end (-1 is the last element; for add, -1 appends).
// - `add` at the root ("") fails (doc is missing path); `replace` at the root takes an object or
//   array value, null makes the document null, any other scalar is silently ignored (v4.12.0).
// - `replace` of a missing object member adds it; `copy` from a missing object member copies null;
//   `test` of a missing or null member succeeds when the value is null or absent.
// - A missing "value" is null. Unknown members of an operation are ignored.
// - Every `copy` adds the size of the copied value's Go JSON encoding to a running total; above
//   kJsonPatchMaxCopyBytes (kube-apiserver's JSONPatchMaxCopyBytes, 3 MiB) the patch fails.
//   Null values count 0 bytes; non-integer numbers are sized as nlohmann prints them.
// Differences, deliberate:
// - `test` compares by JSON value (RFC 6902 §4.6; numbers by value: 1 == 1.0). evanphx compares
//   scalars by their compacted bytes, so there "1" != "1.0" and strings that Go's encoder escapes
//   (<, >, &) never match; it also treats {} and [] as equal to null. Not reproduced.
// - Where evanphx dereferences nil (null values inside arrays under `test`, operations on a
//   null document) this module gives the nearest defined answer instead of a panic.
// - An operation that would nest the document deeper than kMaxPatchedDepth (10,000) levels fails
//   as an application failure (422, see above). Upstream builds such a document and then fails to
//   decode it (also a 422 Invalid, whose message quotes the whole patched JSON).
// - The input is parsed JSON: duplicate member names have already collapsed (last wins, as Go's
//   map decoding does) and syntax errors are the caller's to report (kube: 400 with Go's text).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

namespace apiserver::endpoints::patch {

// kube-apiserver's maxJSONPatchOperations (handlers/patch.go).
inline constexpr size_t kMaxJsonPatchOperations = 10000;
// kube-apiserver's default JSONPatchMaxCopyBytes (server/config.go), installed as evanphx's
// AccumulatedCopySizeLimit.
inline constexpr int64_t kJsonPatchMaxCopyBytes = 3 * 1024 * 1024;

// A patch that kube-apiserver rejects, with the Status it answers.
struct PatchError {
  int code = 0;        // HTTP status: 400, 413, 422, or 500 (see merge_patch.h)
  std::string reason;  // metav1.Status reason: BadRequest, RequestEntityTooLarge, Invalid, "" (500)
  std::string message;  // metav1.Status message, exactly as kube-apiserver sends it
  std::string detail;   // the patch library's own error text (== message for 400 and 500)
};

// Applies the RFC 6902 patch `patch` (the parsed request body) to `document` (the object as the
// client's API version encodes it; an object, or an array). Returns the patched document, or the
// first error: 400 / 413 before any operation runs, 422 from the operation that failed (later
// operations are not run; the input is never modified). A null body is an empty patch, as in Go.
// Linear in the document size per operation.
std::variant<nlohmann::json, PatchError> apply_json_patch(const nlohmann::json& document,
                                                          const nlohmann::json& patch);

// kube-apiserver's extra decode of a JSON patch body under fieldValidation=Strict or Warn
// (sigs.k8s.io/json UnmarshalStrict into []jsonPatchOp{op, path, from string; value any}), run
// BEFORE apply_json_patch:
// - a type error fails the request: 400 BadRequest `error decoding patch: json: cannot unmarshal
//   array into Go value of type []handlers.jsonPatchOp` (or `... into Go value of type
//   handlers.jsonPatchOp` for an element, `... into Go struct field jsonPatchOp.path of type
//   string` for op/path/from that are not strings or null);
// - otherwise the strict problems are returned, each as kube words it: `json patch unknown field
//   "[0].valu"` (member names are case-sensitive; at most 100 are kept). Within one
//   operation members are visited in sorted order, and duplicate members cannot be seen in parsed
//   JSON. The caller uses them as upstream does after decoding the patched object: Warn → one
//   Warning each; Strict → 422 Invalid with field.Invalid("patch", <patched JSON>,
//   "strict decoding error: " + problems joined by ", ").
std::variant<std::vector<std::string>, PatchError> json_patch_strict_errors(
    const nlohmann::json& patch);

}  // namespace apiserver::endpoints::patch
