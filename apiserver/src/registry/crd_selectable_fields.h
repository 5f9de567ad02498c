// A CRD version's selectableFields (spec.versions[].selectableFields[].jsonPath, GA in v1.32):
// their validation when the CRD is written, and the field selectors they give the version's row.
//
// Worked example: selectableFields [{jsonPath: .spec.color}] on a namespaced CRD lets
// `kubectl get widgets --field-selector spec.color=blue` select by .spec.color (absent reads as
// ""); the row accepts metadata.name, metadata.namespace and spec.color, and any other label
// fails with `field label not supported: <label>`, as kube-apiserver's CR converter answers.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apiserver/registry.h"
#include "common/result.h"
#include "registry/crd_schema.h"
#include "registry/objects.h"

namespace apiserver::registry {

// Upstream's limit on distinct selectable fields per version.
inline constexpr size_t kMaxSelectableFields = 8;

// A field path of a structural schema resolved as upstream's ValidFieldPath does (".a.b",
// ".a['b.c']"; array notation only when allowed): the value's path in the object, the path as
// field.Path prints it ("a.b", "a[b.c]" for a map key), and the schema found there (null for a
// map value of `additionalProperties: true`). The error is upstream's, e.g.
// "does not refer to a valid field".
struct ResolvedFieldPath {
  std::vector<std::string> segments;
  std::string printed;
  const CrdSchema::Node* schema = nullptr;
};
common::Result<ResolvedFieldPath> resolve_field_path(const CrdSchema& schema,
                                                     const std::string& json_path,
                                                     bool allow_array_notation);

// The 422 causes of one version's selectableFields (`version` is a spec.versions[] entry, `path`
// its field path "spec.versions[0]"), with upstream's texts, e.g.
//   spec.versions[0].selectableFields[1].jsonPath: Invalid value: ".spec.tags": must point to a
//   field of type string, boolean or integer. Enum string fields and strings with formats are
//   allowed.
// Nothing when the version's schema does not parse (its own error names that).
std::vector<FieldError> validate_selectable_fields(const nlohmann::json& version,
                                                   const std::string& path);

// The field selectors of a version's row: metadata.name, metadata.namespace (namespaced only) and
// each selectable field, with the "core" error text.
FieldSelectors custom_field_selectors(const nlohmann::json& version, bool namespaced);

}  // namespace apiserver::registry
