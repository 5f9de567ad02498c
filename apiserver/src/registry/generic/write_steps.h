// The steps the generic store's writes share: defaulting (noted in the request's trace),
// validation, custom resources' type check, and the object's stored form read and written.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/registry.h"
#include "errors/status.h"
#include "registry/defaults.h"
#include "registry/objects.h"
#include "storage/storage.h"

namespace apiserver::registry {

// A custom resource's defaults from its CRD's structural schema; nothing for other kinds. Also
// what reads apply, so that a default added to a CRD later shows on objects stored before.
void custom_defaults(const Resource& r, nlohmann::json& object);

// The kind's defaults for `phase`, then a custom resource's; the trace notes which fields they
// set under `layer` (a string literal): "defaults" when an object is decoded, another name when
// they run again after admission (what the plugins added gets its defaults, and a create its
// PrepareForCreate effects).
void default_object(const Resource& r, nlohmann::json& object, DefaultingPhase phase,
                    std::string_view layer = "defaults");

// The field errors of a create (`old` null) or an update from `old`.
std::vector<FieldError> validation_errors(const Resource& r, const nlohmann::json& object,
                                          const nlohmann::json* old);

// A custom resource body of another kind or apiVersion: upstream's 422, which names the kind and
// group the body claims (its typer reads them from the object). Without a kind or version the
// typer fails first, and that is a 500. nullopt for a body of the resource's own type.
std::optional<errors::Status> custom_type_meta_refusal(const Resource& r,
                                                       const nlohmann::json& object);

// The object read from the store: always a JSON object with a metadata object, whatever the text
// held, so that the writes may change it without checking.
nlohmann::json stored_object(const storage::Object& stored);

// Go's encoding leaves out an ObjectMeta list or map that is empty (omitempty): labels,
// annotations, finalizers, ownerReferences and managedFields sent empty are not kept.
void drop_empty_metadata(nlohmann::json& object);

// The object as stored: without resourceVersion (the store revision is the truth).
std::string stored_text(nlohmann::json& object);

// Whether `a` and `b` are the same object but for the times of their managedFields entries.
bool only_managed_field_times_differ(const nlohmann::json& a, const nlohmann::json& b);

inline bool has_status_subresource(const Resource& r) {
  return r.subresource("status") != nullptr;
}

}  // namespace apiserver::registry
