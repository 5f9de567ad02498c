// The kind families: each adds the strategies of its kinds. A new family is one file here and
// one line in kind_strategy.cpp. Validation texts and field paths follow kube-apiserver v1.32
// (pkg/apis/*/validation); where a text could not be confirmed it carries a "text unverified"
// comment.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "registry/defaulting_fields.h"
#include "registry/kind_strategy.h"
#include "registry/objects.h"

namespace apiserver::registry::kinds {

using nlohmann::json;
using Errors = std::vector<FieldError>;
using Strategies = std::vector<KindStrategy>;

// A strategy's defaults for a kind whose objects start with an empty status: the kind's own
// defaults, then ensure_status.
template <void (*kDefaults)(json&)>
void defaults_then_status(json& object, const DefaultingContext& context) {
  kDefaults(object);
  fields::ensure_status(object, context);
}

void add_pods(Strategies& s);
void add_workloads(Strategies& s);
void add_batch(Strategies& s);
void add_config(Strategies& s);
void add_services(Strategies& s);
void add_storage(Strategies& s);
void add_rbac(Strategies& s);
void add_networking(Strategies& s);
void add_events(Strategies& s);
void add_cluster(Strategies& s);
void add_admission(Strategies& s);
void add_control_plane(Strategies& s);
void add_certificates(Strategies& s);
void add_autoscaling(Strategies& s);
void add_dynamic_resources(Strategies& s);
void add_apiextensions(Strategies& s);

}  // namespace apiserver::registry::kinds
