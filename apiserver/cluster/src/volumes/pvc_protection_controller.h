// The PVC protection controller, as kube-controller-manager's: a PersistentVolumeClaim being
// deleted keeps its kubernetes.io/pvc-protection finalizer (which the StorageObjectInUseProtection
// admission plugin put on it) while a scheduled pod that has not finished uses it, by name or as a
// generic ephemeral volume (`<pod>-<volume>`); once none does, the finalizer goes and the claim
// with it. A pod's change or deletion looks at the claims it names again.
#pragma once

#include "client/api_client.h"
#include "client/informer.h"
#include "controller.h"

namespace cluster {

class PvcProtectionController final : public Controller {
 public:
  // `pods`, the shared pod informer, outlives the controller.
  PvcProtectionController(const Client& client, Informer& pods, const common::Clock& clock);
  ~PvcProtectionController() override;

  void start() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  void pod_changed(const json& pod);

  const Client& client_;
  Informer claims_;
  Informer& pods_;
};

// The claims a pod's volumes name: persistentVolumeClaim.claimName, and `<pod>-<volume>` for
// each generic ephemeral volume.
std::vector<std::string> claims_of_pod(const json& pod);

// Whether `pod` keeps claim `name` in use: it is scheduled and has not finished.
bool pod_uses_claim(const json& pod, const std::string& name);

}  // namespace cluster
