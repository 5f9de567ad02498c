#include "registry/changed_paths.h"

#include <utility>

namespace apiserver::registry {
namespace {

// Paths are spelled out to this depth; a change below it is named by its ancestor there.
constexpr size_t kMaxPathDepth = 64;

}  // namespace

std::vector<std::string> changed_paths(const nlohmann::json& before, const nlohmann::json& after,
                                       size_t limit, size_t* more) {
  std::vector<std::string> paths;
  size_t left_out = 0;
  auto record = [&](std::string path) {
    if (paths.size() < limit) {
      paths.push_back(std::move(path));
    } else {
      ++left_out;
    }
  };
  // A pair whose `before` is null is a value `after` added: recorded when it is its turn.
  struct Pair {
    const nlohmann::json* before;
    const nlohmann::json* after;
    std::string path;
    size_t depth;
  };
  std::vector<Pair> todo = {{&before, &after, "", 0}};
  while (!todo.empty()) {
    Pair p = std::move(todo.back());
    todo.pop_back();
    if (p.before == nullptr) {
      record(std::move(p.path));
      continue;
    }
    const auto& b = *p.before;
    const auto& a = *p.after;
    std::vector<Pair> children;
    if (p.depth >= kMaxPathDepth) {
      if (a != b) {
        record(p.path + "...");  // deeper paths are not spelled out
      }
    } else if (a.is_object() && b.is_object()) {
      for (auto it = a.begin(); it != a.end(); ++it) {
        auto old = b.find(it.key());
        children.push_back({old == b.end() ? nullptr : &*old, &it.value(),
                            p.path.empty() ? it.key() : p.path + "." + it.key(), p.depth + 1});
      }
    } else if (a.is_array() && b.is_array()) {
      for (size_t i = 0; i < a.size(); ++i) {
        children.push_back({i < b.size() ? &b[i] : nullptr, &a[i],
                            p.path + "[" + std::to_string(i) + "]", p.depth + 1});
      }
    } else if (a != b) {
      record(p.path);
    }
    // Depth first, in document order: the first child is taken next.
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      todo.push_back(std::move(*it));
    }
  }
  if (more != nullptr) {
    *more = left_out;
  }
  return paths;
}

}  // namespace apiserver::registry
