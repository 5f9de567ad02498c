// CustomResourceDefinitions (apiextensions.k8s.io/v1) as registry data: what a CRD object means
// for the server (its defaults, the validation of its spec, the rows it serves), as pure
// functions over the CRD's JSON. The CRD controller (controllers/crd_controller.h) decides when
// rows are published; the REST handlers serve the rows like any other, and look at
// Resource::custom for what differs for custom resources (schema, status subresource rules).
//
// Worked example: a CRD named videoprocessors.media.example.com with group media.example.com,
// kind VideoProcessor, scope Namespaced and one served and stored version v1 becomes one row:
//   {group "media.example.com", version "v1", resource "videoprocessors",
//    kind "VideoProcessor", singular "videoprocessor", namespaced,
//    etcd_prefix "/registry/media.example.com/videoprocessors",
//    table_columns [Name, <additionalPrinterColumns...> | Age], custom {schema, ...}}
//
// Thread-safety: pure functions; CustomResource is immutable once built and shared by rows.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apiserver/registry.h"
#include "common/result.h"
#include "registry/objects.h"

namespace apiserver::registry {

class CrdSchema;        // registry/crd_schema.h
class CustomConverter;  // registry/custom_conversion.h

struct CustomResource {
  std::string crd_name;  // "<plural>.<group>"
  // The version's openAPIV3Schema as written in the CRD (null when it has none), for OpenAPI.
  nlohmann::json schema;
  // The structural schema: pruning, defaulting and validation of the objects; null when the
  // CRD has no schema.
  std::shared_ptr<const CrdSchema> structural;
  // The schema as a root for the typed operations (field ownership, server-side apply): the
  // openAPIV3Schema with metadata as a reference to ObjectMeta.
  nlohmann::json typed_root;
  // The CRD is being deleted: no new objects (create answers 405).
  bool terminating = false;
  // subresources.scale, when declared.
  std::string spec_replicas_path;
  std::string status_replicas_path;
  std::string label_selector_path;
  // spec.conversion: how objects change versions (null: strategy None), and every version of
  // the CRD as "group/version", served or not.
  std::shared_ptr<const CustomConverter> converter;
  std::vector<std::string> versions;
  // The version's deprecation: with `deprecated`, every request gets a Warning header with
  // deprecationWarning, or by default "<group>/<version> <Kind> is deprecated".
  bool deprecated = false;
  std::string deprecation_warning;
};

inline constexpr const char* kCrdGroup = "apiextensions.k8s.io";
inline constexpr const char* kCrdResource = "customresourcedefinitions";
inline constexpr const char* kCrdCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";
inline constexpr const char* kCrdPrefix =
    "/registry/apiextensions.k8s.io/customresourcedefinitions/";

bool is_crd(const Resource& r);

// The defaults kube-apiserver gives a CRD on create and update: names.singular (lower-case
// kind), names.listKind (<kind>List), conversion.strategy None.
void default_crd(nlohmann::json& crd);

// The 422 causes of creating or updating a CRD, for what users commonly get wrong: metadata.name
// must be <plural>.<group>, group a domain with a dot, plural/kind required, scope Cluster or
// Namespaced, versions present with exactly one storage version, a schema for each version.
// Upstream prints spec.versions' value as Go structs with pointer addresses; here it is shortened
// to `[]apiextensions.CustomResourceDefinitionVersion{...}`.
std::vector<FieldError> validate_crd(const nlohmann::json& crd);

// What a custom resource's validation checks before anything else, as upstream's: a `kind` and
// `apiVersion` other than the resource's (a body of another kind decodes, since custom resources
// are unstructured, and is refused here: `kind: Invalid value: "Other": must be Widget`). When
// there are errors the 422 names the object's own kind, as upstream's typer reads it from the body.
std::vector<FieldError> custom_type_meta_errors(const Resource& r, const nlohmann::json& object);

// The names a CRD asks for (spec.names), all lower-case but kind and listKind.
struct CrdNames {
  std::string plural;
  std::string singular;
  std::string kind;
  std::string list_kind;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
};
CrdNames names_of(const nlohmann::json& crd);
nlohmann::json names_json(const CrdNames& names);

// Why `crd`'s names cannot be accepted next to `others` (the accepted names of the other CRDs
// of the same group): "" when they can, else upstream's message, e.g.
// `"videoprocessors" is already in use`.
std::string names_conflict(const CrdNames& wanted, const std::vector<CrdNames>& others);

// The rows a CRD serves: one per served version, built from its spec and `accepted` names, each
// converting with `converter` (null: None) and, but for the storage version's, stored as the
// storage version's row. Fails (no rows) when a version's schema is not structural.
common::Result<std::vector<Resource>> rows_for_crd(
    const nlohmann::json& crd, const CrdNames& accepted, bool terminating,
    std::shared_ptr<const CustomConverter> converter = nullptr);

// Evaluates an additionalPrinterColumns JSONPath (".spec.replicas", ".status.conditions[0].type",
// `.status.conditions[?(@.type=="Ready")].status`) on `object`; null when nothing matches. Only
// the first result counts, as upstream's table convertor uses it.
nlohmann::json eval_column_path(const std::string& path, const nlohmann::json& object);

}  // namespace apiserver::registry
