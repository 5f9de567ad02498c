// Correlation of old and new custom resources for validation ratcheting, following
// k8s.io/apiserver v1.32 pkg/cel/common (equality.go, maplist.go).
#include "registry/crd_schema_ratcheting.h"

#include "registry/crd_schema_values.h"
#include "registry/walk_depth.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;

bool scalar_key(const json& v) {
  return v.is_boolean() || v.is_number() || v.is_string();
}

// Whether list-map item `a` has every key of `keys` as a scalar, equal to `b`'s.
bool same_keys(const json& a, const json& b, const std::vector<std::string>& keys) {
  for (const auto& k : keys) {
    auto x = a.find(k);
    auto y = b.find(k);
    if (x == a.end() || y == b.end() || !scalar_key(*x) || !scalar_key(*y) || !go_equal(*x, *y)) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<Correlation> correlate_key(const Correlation& parent, const json& now,
                                         const std::string& key) {
  if (parent.old == nullptr || parent.schema == nullptr || !parent.old->is_object() ||
      !now.is_object()) {
    return std::nullopt;
  }
  auto old_it = parent.old->find(key);
  if (old_it == parent.old->end() || !now.contains(key)) {
    return std::nullopt;
  }
  const CrdSchema::Node* schema = parent.schema->property(key);
  if (schema == nullptr) {
    schema = parent.schema->additional.get();  // null for additionalProperties: true
  }
  if (schema == nullptr) {
    return std::nullopt;
  }
  return Correlation{&*old_it, schema};
}

std::optional<Correlation> correlate_index(const Correlation& parent, const json& now,
                                           size_t index) {
  if (parent.old == nullptr || parent.schema == nullptr || !parent.old->is_array() ||
      !now.is_array() || index >= now.size() || parent.schema->list_type != "map" ||
      !parent.schema->items) {
    return std::nullopt;
  }
  const json& item = now[index];
  const auto& keys = parent.schema->list_map_keys;
  if (!item.is_object() || keys.empty()) {
    return std::nullopt;
  }
  for (const auto& k : keys) {
    auto it = item.find(k);
    if (it == item.end() || !scalar_key(*it)) {
      return std::nullopt;
    }
  }
  // The first old item with the same keys, as upstream's map list keeps the first.
  for (const auto& old_item : *parent.old) {
    if (old_item.is_object() && same_keys(item, old_item, keys)) {
      return Correlation{&old_item, parent.schema->items.get()};
    }
  }
  return std::nullopt;
}

namespace {

bool compare(const Correlation& c, const json& now, UnchangedMemo& memo);

}  // namespace

bool unchanged(const Correlation& c, const json& now, UnchangedMemo& memo) {
  if (auto it = memo.find(&now); it != memo.end()) {
    return it->second;
  }
  const bool same = compare(c, now, memo);
  memo.emplace(&now, same);
  return same;
}

namespace {

bool compare(const Correlation& c, const json& now, UnchangedMemo& memo) {
  const WalkDepth depth;
  if (c.old == nullptr || depth.exceeded()) {
    return false;
  }
  const json& old = *c.old;
  if (old.is_null() || now.is_null()) {
    return old.is_null() && now.is_null();
  }
  if (old.is_array() != now.is_array() || old.is_object() != now.is_object()) {
    return false;
  }
  if (old.is_array()) {
    if (old.size() != now.size()) {
      return false;
    }
    for (size_t i = 0; i < now.size(); ++i) {
      auto child = correlate_index(c, now, i);
      if (!child) {
        // Lists that are not map-lists are compared whole.
        return (c.schema == nullptr || c.schema->list_type != "map") && go_equal(old, now);
      }
      if (!unchanged(*child, now[i], memo)) {
        return false;
      }
    }
    return true;
  }
  if (old.is_object()) {
    if (old.size() != now.size()) {
      return false;
    }
    for (const auto& [key, value] : now.items()) {
      auto child = correlate_key(c, now, key);
      if (!child || !unchanged(*child, value, memo)) {
        return false;
      }
    }
    return true;
  }
  return go_equal(old, now);
}

}  // namespace

}  // namespace apiserver::registry
