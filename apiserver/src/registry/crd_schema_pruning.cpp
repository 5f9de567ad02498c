// Pruning of custom resources (pkg/apiserver/schema/pruning): CrdSchema::prune drops the fields
// the schema does not declare, then the nulls of non-nullable fields without a default.
#include <algorithm>
#include <string>
#include <vector>

#include "registry/crd_schema.h"
#include "registry/crd_schema_node.h"
#include "registry/walk_depth.h"

namespace apiserver::registry {

using nlohmann::json;
using Node = CrdSchema::Node;

namespace {

bool is_meta_field(const std::string& key) {
  return key == "apiVersion" || key == "kind" || key == "metadata";
}

struct Pruner {
  std::vector<std::string> pruned;
  std::string path;
  int depth = 0;  // upstream's "parent path not empty": keys may be empty strings

  void record(const std::string& key) { pruned.push_back(depth > 0 ? path + "." + key : key); }

  // Runs `f` with `key` appended to the path, as upstream's appendKey.
  template <typename F>
  void with_key(const std::string& key, F f) {
    const size_t saved = path.size();
    if (depth > 0) {
      path += '.';
    }
    path += key;
    ++depth;
    f();
    --depth;
    path.resize(saved);
  }

  template <typename F>
  void with_index(size_t i, F f) {
    const size_t saved = path.size();
    path += "[" + std::to_string(i) + "]";
    ++depth;
    f();
    --depth;
    path.resize(saved);
  }

  // embedded_override: the resource root counts as an embedded resource.
  void prune(json& x, const Node* s, bool embedded_override = false) {
    const WalkDepth level;
    if (level.exceeded()) {
      return;  // validate() refuses what lies deeper
    }
    if (s != nullptr && s->preserve_unknown) {
      skip_prune(x, s, embedded_override);
      return;
    }
    if (x.is_object()) {
      std::vector<std::string> drop;
      for (auto it = x.begin(); it != x.end(); ++it) {
        const std::string& key = it.key();
        if (s == nullptr) {
          record(key);
          drop.push_back(key);
          continue;
        }
        if ((s->embedded || embedded_override) && is_meta_field(key)) {
          continue;
        }
        if (const Node* prop = s->property(key)) {
          with_key(key, [&] { prune(it.value(), prop); });
        } else if (s->has_additional) {
          with_key(key, [&] { prune(it.value(), s->additional.get()); });
        } else {
          if (!is_meta_field(key) || depth > 0) {
            record(key);
          }
          drop.push_back(key);
        }
      }
      for (const auto& key : drop) {
        x.erase(key);
      }
    } else if (x.is_array()) {
      const Node* items = s == nullptr ? nullptr : s->items.get();
      for (size_t i = 0; i < x.size(); ++i) {
        with_index(i, [&] { prune(x[i], items); });
      }
    }
  }

  // Under x-kubernetes-preserve-unknown-fields: unknown fields stay, known ones are pruned by
  // their schemas.
  void skip_prune(json& x, const Node* s, bool embedded_override = false) {
    const WalkDepth level;
    if (s == nullptr || level.exceeded()) {
      return;
    }
    if (x.is_object()) {
      for (auto it = x.begin(); it != x.end(); ++it) {
        const std::string& key = it.key();
        if ((s->embedded || embedded_override) && is_meta_field(key)) {
          continue;
        }
        if (const Node* prop = s->property(key)) {
          with_key(key, [&] { prune(it.value(), prop); });
        } else if (s->has_additional) {
          with_key(key, [&] { prune(it.value(), s->additional.get()); });
        }
      }
    } else if (x.is_array()) {
      for (size_t i = 0; i < x.size(); ++i) {
        with_index(i, [&] { skip_prune(x[i], s->items.get()); });
      }
    }
  }
};

const Node* schema_for_field(const std::string& key, const Node* s) {
  if (s == nullptr) {
    return nullptr;
  }
  if (const Node* prop = s->property(key)) {
    return prop;
  }
  return s->has_additional ? s->additional.get() : nullptr;
}

// defaulting.PruneNonNullableNullsWithoutDefaults.
void prune_nulls(json& x, const Node* s) {
  const WalkDepth depth;
  if (depth.exceeded()) {
    return;
  }
  if (x.is_object()) {
    std::vector<std::string> drop;
    for (auto it = x.begin(); it != x.end(); ++it) {
      const Node* sub = schema_for_field(it.key(), s);
      if (it->is_null() && sub != nullptr && !sub->nullable && !sub->default_value) {
        drop.push_back(it.key());
      } else {
        prune_nulls(it.value(), sub);
      }
    }
    for (const auto& key : drop) {
      x.erase(key);
    }
  } else if (x.is_array()) {
    const Node* items = s == nullptr ? nullptr : s->items.get();
    for (auto& item : x) {
      prune_nulls(item, items);
    }
  }
}

}  // namespace

std::vector<std::string> CrdSchema::prune(nlohmann::json& object) const {
  Pruner pruner;
  pruner.prune(object, root_.get(), /*embedded_override=*/true);
  prune_nulls(object, root_.get());
  std::sort(pruner.pruned.begin(), pruner.pruned.end());
  return pruner.pruned;
}

}  // namespace apiserver::registry
