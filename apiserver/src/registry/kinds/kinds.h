// The kind families: each adds the strategies of its kinds. A new family is one file here and
// one line in kind_strategy.cpp. Validation texts and field paths follow kube-apiserver v1.32
// (pkg/apis/*/validation); where a text could not be confirmed it carries a "text unverified"
// comment.
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "registry/defaulting_fields.h"
#include "registry/kind_strategy.h"
#include "registry/objects.h"

namespace apiserver::registry::kinds {

using nlohmann::json;
using Errors = std::vector<FieldError>;
using Strategies = std::vector<KindStrategy>;

// A strategy's defaults for a kind whose objects start with an empty status: the kind's own
// defaults, then ensure_status. `kZeroFields` (comma-separated) are the status counters Go
// writes even at zero (no omitempty): a new object's status carries them as 0, as
// kube-apiserver's answer to a create does.
template <void (*kDefaults)(json&), const char* kZeroFields = nullptr>
void defaults_then_status(json& object, const DefaultingContext& context) {
  kDefaults(object);
  fields::ensure_status(object, context);
  if constexpr (kZeroFields != nullptr) {
    if (context.phase == DefaultingPhase::Create) {
      std::string_view fields = kZeroFields;
      while (!fields.empty()) {
        const size_t comma = std::min(fields.find(','), fields.size());
        object["status"][std::string(fields.substr(0, comma))] = 0;
        fields.remove_prefix(std::min(comma + 1, fields.size()));
      }
    }
  }
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
