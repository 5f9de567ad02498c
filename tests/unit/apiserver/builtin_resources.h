// Every built-in resource the server can serve, alpha and beta versions included: the rows the
// registry tests walk over; and a bare row of version v1 for tests that name one resource.
#pragma once

#include <memory>
#include <string>

#include "apiserver/registry.h"

namespace apiserver::testing {

inline std::shared_ptr<const registry::Snapshot> all_builtin_resources() {
  static const auto registry = [] {
    auto config = registry::RuntimeConfig::parse("api/all=true");
    return registry::Registry::builtin(*config);
  }();
  return registry->snapshot();
}

// A row of version v1 with nothing but its names set.
inline registry::Resource resource(const std::string& group, const std::string& plural,
                                   const std::string& kind, bool namespaced = true) {
  registry::Resource r;
  r.group = group;
  r.version = "v1";
  r.resource = plural;
  r.kind = kind;
  r.namespaced = namespaced;
  return r;
}

}  // namespace apiserver::testing
