// The resource quota controller, as kube-controller-manager's: each ResourceQuota's status gets
// hard (from spec.hard) and used, counted from the namespace's objects: pods (not finished) and
// their requests and limits (requests.<r>, limits.<r>, cpu and memory as requests), only those
// in the quota's scopes, services (and their node ports and load balancers), configmaps,
// secrets, persistentvolumeclaims (and requests.storage, also per storage class),
// replicationcontrollers, resourcequotas, and count/<resource>[.<group>] for any other resource.
// Pods' changes and spec.hard's update it at once; the rest within the resync period (30 s).
// Quota admission charges each create to status.used in between.
#pragma once

#include "client/api_client.h"
#include "client/informer.h"
#include "controller.h"

namespace cluster {

class ResourceQuotaController final : public Controller {
 public:
  ResourceQuotaController(const Client& client, Informer& pods, const common::Clock& clock);
  ~ResourceQuotaController() override;

  void start() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  // How many objects of `resource` (plural, "group" or "" for the core group) the namespace has.
  std::optional<int64_t> count(const std::string& ns, const std::string& group,
                               const std::string& resource);

  const Client& client_;
  Informer quotas_;
  Informer& pods_;
};

}  // namespace cluster
