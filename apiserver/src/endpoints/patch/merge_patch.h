// RFC 7386 JSON Merge Patch (Content-Type application/merge-patch+json) as kube-apiserver v1.32
// applies it: jsonpatch.MergePatch from gopkg.in/evanphx/json-patch.v4 v4.12.0, called by
// applyJSPatch in k8s.io/apiserver/pkg/endpoints/handlers/patch.go. Pure functions, thread-safe.
//
// Semantics (RFC 7386 with evanphx's differences, which clients observe through kube):
// - object patch onto object document: members merge recursively; a null member deletes; a
//   member whose current value is an object and whose patch value is an object merges; anything
//   else replaces.
// - Nulls inside a value that is inserted (not merged) are pruned: null object members are
//   dropped and null array elements removed, recursively. evanphx prunes when the member is new,
//   null, or currently not an object; a non-object patch value replacing a current object is
//   inserted as is (so {"a":{}} + {"a":[null]} keeps the null; {"a":[]} + {"a":[null]} does not).
// - object patch onto a non-object document: the document becomes the pruned patch.
// - array patch: the document becomes the array with its nulls pruned.
// - null or scalar patch: rejected (RFC 7386 would return the patch itself).
//
// Errors → response:
//   400 BadRequest  `Invalid JSON Patch` (a null, string, number or boolean patch); kube's
//                   errors.NewBadRequest(jsonpatch.ErrBadJSONPatch.Error()).
//   500 (reason "") `Invalid JSON Document` when the document is null; kube passes this error
//                   through unconverted, so its generic 500 Status carries the text. Unreachable
//                   for stored objects, which are always JSON objects.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <variant>

#include "endpoints/patch/json_patch.h"

namespace apiserver::endpoints::patch {

// Applies the merge patch `patch` (the parsed request body) to `document`. Linear in the sizes of
// both; the inputs are never modified.
std::variant<nlohmann::json, PatchError> apply_merge_patch(const nlohmann::json& document,
                                                           const nlohmann::json& patch);

// kube-apiserver's extra decode of a merge patch body under fieldValidation=Strict or Warn
// (sigs.k8s.io/json UnmarshalStrict into map[string]interface{}), run BEFORE apply_merge_patch: a
// body that is neither an object nor null is a 400 BadRequest `error decoding patch: json: cannot
// unmarshal array into Go value of type map[string]interface {}`. Duplicate members (the only
// strict problem a map can have) are not visible in parsed JSON.
std::optional<PatchError> merge_patch_strict_error(const nlohmann::json& patch);

// A merge patch that turns `from` into `to` (jsonpatch.CreateMergePatch for two objects): members
// only in `from` become null, changed members are replaced, except objects on both sides, which
// are diffed recursively and left out when equal; arrays are replaced whole when not equal
// (numbers compare by value). When either side is not an object the patch is `to` itself (upstream
// errors, or diffs arrays of objects element-wise).
//
// Guarantee: apply_merge_patch(from, create_merge_patch(from, to)) == to whenever `from` and `to`
// are objects and `to` contains no null at any depth: a null member of `to` becomes a deletion,
// and nulls inside new arrays or objects are pruned by the merge (see above). `from` may hold
// nulls anywhere.
nlohmann::json create_merge_patch(const nlohmann::json& from, const nlohmann::json& to);

}  // namespace apiserver::endpoints::patch
