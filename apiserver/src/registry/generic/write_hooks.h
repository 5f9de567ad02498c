// What a kind adds around the generic store's writes when its rules need state of their own,
// as upstream's registries wrap the generic store (the Service registry allocates cluster IPs
// and node ports in BeginCreate and BeginUpdate and frees them after a delete). A kind's
// strategy names its hooks (KindStrategy::make_write_hooks); the store keeps one instance per
// kind. Pure per-kind rules belong in the strategy itself.
//
// Thread-safety: called from any request thread at once; implementations guard their state.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "registry/objects.h"

namespace apiserver::registry {

// What the API server's flags set for the hooks.
struct WriteHooksOptions {
  std::string service_cidr = "10.96.0.0/12";  // kube-apiserver's --service-cluster-ip-range
};

class WriteHooks {
 public:
  virtual ~WriteHooks() = default;

  // At start-up: every stored object of the kind.
  virtual void load(const std::vector<nlohmann::json>& stored) = 0;
  // After validation, before the create is stored; errors refuse it (422).
  virtual std::vector<FieldError> begin_create(nlohmann::json& object) = 0;
  // A create that begin_create allowed is not stored (a dry run, or the store refused it).
  virtual void abort_create(const nlohmann::json& object) = 0;
  // After validation, before an update of the main resource is stored; errors refuse it.
  virtual std::vector<FieldError> begin_update(const nlohmann::json& old,
                                               nlohmann::json& updated) = 0;
  // The object was removed from the store.
  virtual void after_delete(const nlohmann::json& object) = 0;
};

}  // namespace apiserver::registry
