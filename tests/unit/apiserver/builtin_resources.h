// Every built-in resource the server can serve, alpha and beta versions included: the rows the
// registry tests walk over.
#pragma once

#include <memory>
#include <string>

#include "apiserver/registry.h"

namespace apiserver::testing {

inline std::shared_ptr<const registry::Snapshot> all_builtin_resources() {
  static const auto registry = [] {
    std::string error;
    auto config = registry::RuntimeConfig::parse("api/all=true", error);
    return registry::Registry::builtin(*config);
  }();
  return registry->snapshot();
}

}  // namespace apiserver::testing
