// The class an object gets when it names none (DefaultStorageClass, DefaultIngressClass): among
// the classes whose annotation marks them default ("true"), the newest by creationTimestamp, the
// first by name among equally new ones, as kube-apiserver v1.32 picks when several are marked.
// Pure; safe from any thread.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace apiserver::admission {

struct DefaultClass {
  std::string name;
  size_t marked = 0;  // how many classes were marked default (more than one: the newest won)
};

// `annotations`: the annotation keys that mark a class default (any of them set to "true").
// nullopt when no class is marked.
std::optional<DefaultClass> newest_default_class(const std::vector<nlohmann::json>& classes,
                                                 std::initializer_list<const char*> annotations);

// The trace's words for the choice, e.g. `the default StorageClass is "standard"` or, with
// several marked, `... is "fast", the newest of 2 marked default`.
std::string describe_default(const DefaultClass& chosen, const std::string& kind);

}  // namespace apiserver::admission
