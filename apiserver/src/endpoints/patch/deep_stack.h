// Room for walks over deeply nested client data. Request bodies may nest 10,000 levels (Go's
// decoder limit, which kube-apiserver inherits); Go grows its stacks, but here nlohmann::json
// copies and compares recursively and the patch algorithms recurse once per level, at about
// 1 KiB a level for a copy alone under ASan. A request thread's 8 MiB would not do, so a walk
// over values nested deeper than kInlineDepth runs on a thread of its own with a large stack
// (reserved address space; only the pages a walk touches are committed).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "registry/walk_depth.h"

namespace apiserver::endpoints::patch {

// The deepest document the patch algorithms produce: Go's decoder limit, which upstream
// applies when it decodes the patched object.
inline constexpr std::size_t kMaxPatchedDepth = registry::kMaxNestingDepth;
// Values up to this deep are walked on the caller's stack.
inline constexpr std::size_t kInlineDepth = 128;
// The stack of a deep walk: room for kMaxPatchedDepth levels of the heaviest walk (server-side
// apply under ASan) with a wide margin.
inline constexpr std::size_t kDeepStackBytes = std::size_t{1} << 30;

// The nesting depth of `value`: 0 for a scalar, 1 for {} or [], 2 for {"a":[]}. Iterative.
std::size_t json_depth(const nlohmann::json& value);

// Runs `fn` on a new thread with a kDeepStackBytes stack and waits for it. An exception `fn`
// throws is rethrown here. Throws std::system_error when no thread can be started (resource
// exhaustion, never client data).
void run_on_deep_stack(const std::function<void()>& fn);

// Runs `fn` and returns its result: on the caller's stack when `depth` <= kInlineDepth, else on
// a deep stack (see run_on_deep_stack).
template <class Fn>
auto with_stack_for(std::size_t depth, Fn&& fn) -> decltype(fn()) {
  if (depth <= kInlineDepth) {
    return fn();
  }
  std::optional<decltype(fn())> result;
  run_on_deep_stack([&] { result.emplace(fn()); });
  return std::move(*result);
}

}  // namespace apiserver::endpoints::patch
