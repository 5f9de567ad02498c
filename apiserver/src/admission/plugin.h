// One admission plugin (kube-apiserver's admission.Interface with MutationInterface and/or
// ValidationInterface) and what every plugin may use to look things up. Each plugin is one file
// in plugins/ (or webhook/), built by a factory the chain lists in upstream's order
// (plugins.h).
//
// Thread-safety: a plugin is called from many request threads at once; it guards any state it
// keeps.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "admission/attributes.h"
#include "apiserver/registry.h"
#include "common/clock.h"
#include "common/result.h"
#include "storage/storage.h"

namespace apiserver::authorization {
class Authorizer;
}
namespace apiserver::filters {
class Metrics;
}

namespace apiserver::admission {

// What the plugins read the cluster through: the store (no authorization, no admission: the
// plugins act as the API server itself), the served resources, the authorizers, the clock.
// Everything outlives the chain.
struct Services {
  storage::Storage& storage;
  std::function<std::shared_ptr<const registry::Snapshot>()> snapshot;
  const authorization::Authorizer& authorizer;
  const common::Clock& clock;
  filters::Metrics* metrics = nullptr;  // may be null (unit tests)
  // Applies an RFC 6902 JSON patch (a parsed array of operations) to `document` as
  // kube-apiserver applies a mutating webhook's patch; the error is the patch library's text.
  // Set by the composition (the endpoints layer's JSON patch); null: no patch can be applied.
  std::function<common::Result<nlohmann::json>(const nlohmann::json& document,
                                               const nlohmann::json& patch)>
      json_patch = nullptr;

  // The stored object of `resource` (a built-in resource's plural, in `group`; "" for core)
  // named `ns`/`name` ("" ns for cluster-scoped), parsed; nullopt when there is none or it is
  // unreadable.
  std::optional<nlohmann::json> get(const std::string& group, const std::string& resource,
                                    const std::string& ns, const std::string& name) const;
  // Every stored object of `resource` in `ns` ("" : all namespaces, or a cluster-scoped
  // resource), parsed, in key order.
  std::vector<nlohmann::json> list(const std::string& group, const std::string& resource,
                                   const std::string& ns) const;
  // The same as stored (key, JSON text, revision), for a plugin that writes back with a compare
  // on the revision.
  std::vector<storage::Object> list_stored(const std::string& group, const std::string& resource,
                                           const std::string& ns) const;
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  // Upstream's plugin name, e.g. "NamespaceLifecycle".
  virtual std::string_view name() const = 0;

  // The mutating pass (admission.MutationInterface): may change *a.object. A plugin that does
  // not mutate admits everything here. `note` (may be left empty) is what the trace says the
  // plugin did beyond the fields it changed (the chain names those itself).
  virtual Decision admit(Attributes& a, std::string& note) {
    (void)a;
    (void)note;
    return std::nullopt;
  }
  virtual bool mutates() const { return false; }

  // The validating pass (admission.ValidationInterface): must not change the object.
  virtual Decision validate(Attributes& a, std::string& note) {
    (void)a;
    (void)note;
    return std::nullopt;
  }
  virtual bool validates() const { return false; }
};

}  // namespace apiserver::admission
