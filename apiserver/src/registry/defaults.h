// The defaults kube-apiserver v1.32 fills into objects: the SetDefaults_* functions of the
// versioned API packages (run whenever an object is decoded: on create, on update and again when
// it is read back from storage), plus the registry strategies' PrepareForCreate effects. The
// admission plugins' effects are theirs (admission/plugins/).
//
// Every function here is pure apart from the one random volume-name suffix (which the context can
// fix): no storage, no clock, no locks; safe from any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "apiserver/registry.h"

namespace apiserver::registry {

// Which request is being served; decides which effects apply.
enum class DefaultingPhase {
  Decode,  // decoding only (a stored object read back): SetDefaults_* and conversion effects
  Create,  // Decode + PrepareForCreate
  Update,  // Decode (status and immutable fields stay the caller's job)
};

struct DefaultingContext {
  DefaultingPhase phase = DefaultingPhase::Create;
};

// Fills `object` (a whole object of `resource`'s kind, as JSON) with the defaults of the phase.
// Kinds without defaults are left unchanged. Job create needs metadata.name and metadata.uid set
// beforehand (its generated selector uses them). Never throws on odd shapes: fields of the wrong
// JSON type are left alone for validation to reject.
void apply_defaults(const Resource& resource, nlohmann::json& object);  // phase Create
void apply_defaults(const Resource& resource, nlohmann::json& object,
                    const DefaultingContext& context);

// Whether apply_defaults may change an object of `resource`'s kind; false means it never does
// (the caller can skip comparing before and after).
bool has_defaults(const Resource& resource);

// Pieces exposed for tests and for other registry code.

// "Always" when the image's tag is `latest`, or it has neither tag nor digest; else
// "IfNotPresent" (also for references the docker reference grammar rejects).
std::string default_image_pull_policy(const std::string& image);

// status.qosClass of a pod (after defaulting): "BestEffort", "Burstable" or "Guaranteed".
std::string pod_qos_class(const nlohmann::json& pod);

}  // namespace apiserver::registry
