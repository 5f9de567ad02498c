// The nesting bound of recursive walks over client data (schemas, objects). Bodies are decoded
// with kube-apiserver's limit of 10,000 levels, so any decoded body walks fully; deeper values
// (built by patches, or defaults inside deep objects) stop the walk instead of the stack.
#pragma once

#include <algorithm>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace apiserver::registry {

// Go's limit on nested arrays and objects in a decoded body (sigs.k8s.io/json and encoding/json
// alike); the decoders of every layer above use this one constant.
inline constexpr std::size_t kMaxNestingDepth = 10000;
inline constexpr int kMaxWalkDepth = static_cast<int>(kMaxNestingDepth) + 50;
// Schemas (CRD openAPIV3Schema, with their defaults and enums) nest far less in practice; they are
// refused past this many JSON levels, so that parsing and copying them stays shallow.
inline constexpr int kMaxSchemaDepth = 1000;

// One level of a walk on this thread, for as long as it lives; nested walks on one thread share
// the count.
class WalkDepth {
 public:
  WalkDepth() { ++level(); }
  ~WalkDepth() { --level(); }
  WalkDepth(const WalkDepth&) = delete;
  WalkDepth& operator=(const WalkDepth&) = delete;

  bool exceeded() const { return level() > kMaxWalkDepth; }

 private:
  static int& level() {
    thread_local int n = 0;
    return n;
  }
};

// How deep `value` nests (a scalar is 0, [] and {} are 1), counted without recursion; stops
// counting past `limit`. For values about to be copied or compared: nlohmann::json does both
// recursively.
inline int json_depth(const nlohmann::json& value, int limit) {
  int deepest = 0;
  std::vector<std::pair<const nlohmann::json*, int>> pending{{&value, 0}};
  while (!pending.empty()) {
    const auto [v, depth] = pending.back();
    pending.pop_back();
    if (!v->is_structured()) {
      continue;
    }
    deepest = std::max(deepest, depth + 1);
    if (deepest > limit) {
      return deepest;
    }
    for (const auto& item : *v) {
      pending.emplace_back(&item, depth + 1);
    }
  }
  return deepest;
}

}  // namespace apiserver::registry
