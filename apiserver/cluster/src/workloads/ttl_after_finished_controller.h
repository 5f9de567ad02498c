// The TTL-after-finished controller, as kube-controller-manager's: a Job that finished (Complete
// or Failed) and has spec.ttlSecondsAfterFinished is deleted that many seconds after it finished,
// with propagationPolicy Foreground (its pods go first) and its uid as precondition.
#pragma once

#include "client/api_client.h"
#include "client/informer.h"
#include "controller.h"

namespace cluster {

class TtlAfterFinishedController final : public Controller {
 public:
  TtlAfterFinishedController(const Client& client, const common::Clock& clock);
  ~TtlAfterFinishedController() override;

  void start() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  const Client& client_;
  Informer jobs_;
};

}  // namespace cluster
