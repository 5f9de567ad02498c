// Object validation as kube-apiserver v1.32 does it for the commonly used kinds: the field errors
// that make up a 422 Invalid, with upstream's reasons, field paths and messages.
//
// Pure functions: no I/O, no locks, safe from any thread. Inputs are objects in their served
// (external, v1) JSON form, after defaulting and name generation. Values inside messages are
// printed as Go's field.Error prints them (strings %q, numbers bare, maps and selectors in Go
// syntax). Kinds without specific rules get the metadata rules only.
//
// Known gaps (documented, not hidden): messages that upstream follows with a Go cmp.Diff of the
// internal struct (Pod and PVC spec updates) end where the diff would start; Job template
// immutability shows the value as `core.PodTemplateSpec{...}`.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "apiserver/registry.h"
#include "registry/objects.h"

namespace apiserver::registry {

// Errors for creating `object` as a `resource`; empty when valid. Order follows upstream's
// validation order closely enough for single-cause messages; render with render_field_errors.
std::vector<FieldError> validate_create(const Resource& resource, const nlohmann::json& object);

// Errors for replacing `old` with `object`: the create rules plus immutable fields
// (`field is immutable` and each kind's own update rules).
std::vector<FieldError> validate_update(const Resource& resource, const nlohmann::json& object,
                                        const nlohmann::json& old);

}  // namespace apiserver::registry
