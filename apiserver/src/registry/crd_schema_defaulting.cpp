// Structural defaulting of custom resources (pkg/apiserver/schema/defaulting):
// CrdSchema::apply_defaults sets the `default` values of missing fields.
#include "registry/crd_schema.h"
#include "registry/crd_schema_node.h"
#include "registry/walk_depth.h"

namespace apiserver::registry {

using nlohmann::json;
using Node = CrdSchema::Node;

namespace {

bool non_nullable_null(const json& x, const Node* s) {
  return x.is_null() && s != nullptr && !s->nullable;
}

void apply_default(json& x, const Node* s) {
  const WalkDepth depth;
  if (s == nullptr || depth.exceeded()) {
    return;
  }
  if (x.is_object()) {
    for (const auto& [key, prop] : s->properties) {
      if (!prop->default_value) {
        continue;
      }
      auto it = x.find(key);
      if (it == x.end() || non_nullable_null(*it, prop.get())) {
        x[key] = *prop->default_value;
      }
    }
    for (auto it = x.begin(); it != x.end(); ++it) {
      if (const Node* prop = s->property(it.key())) {
        apply_default(it.value(), prop);
      } else if (s->has_additional) {
        const Node* add = s->additional.get();
        if (non_nullable_null(it.value(), add)) {
          // Upstream then defaults the old (null) value, i.e. nothing further.
          it.value() = add->default_value.value_or(json());
        } else {
          apply_default(it.value(), add);
        }
      }
    }
  } else if (x.is_array()) {
    const Node* items = s->items.get();
    for (auto& item : x) {
      if (non_nullable_null(item, items)) {
        item = items->default_value.value_or(json());
      } else {
        apply_default(item, items);
      }
    }
  }
}

}  // namespace

void CrdSchema::apply_defaults(nlohmann::json& object) const {
  apply_default(object, root_.get());
}

}  // namespace apiserver::registry
