// The PV protection controller, as kube-controller-manager's: a PersistentVolume being deleted
// keeps its kubernetes.io/pv-protection finalizer (from the StorageObjectInUseProtection admission
// plugin) while it is Bound to a claim; once it is not, the finalizer goes and the volume with it.
#pragma once

#include "client/api_client.h"
#include "client/informer.h"
#include "controller.h"

namespace cluster {

class PvProtectionController final : public Controller {
 public:
  PvProtectionController(const Client& client, const common::Clock& clock);
  ~PvProtectionController() override;

  void start() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  const Client& client_;
  Informer volumes_;
};

}  // namespace cluster
