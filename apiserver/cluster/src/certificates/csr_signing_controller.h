// The csrsigning controller, as kube-controller-manager's for the kubernetes.io/kube-apiserver-
// client signer: an approved CertificateSigningRequest without a certificate is signed by the
// cluster CA (through ClusterOptions::sign_certificate) for signing_duration(), and the
// certificate written through certificatesigningrequests/<name>/status; one whose usages do not
// suit the signer gets a Failed condition (reason SignerValidationFailure) instead. Requests for
// other signers are left alone.
#pragma once

#include "client/api_client.h"
#include "client/informer.h"
#include "cluster/cluster.h"
#include "controller.h"

namespace cluster {

class CsrSigningController final : public Controller {
 public:
  CsrSigningController(const Client& client, CertificateSigner sign,
                       std::chrono::seconds signing_duration, const common::Clock& clock);
  ~CsrSigningController() override;

  void start() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  const Client& client_;
  const CertificateSigner sign_;
  const std::chrono::seconds signing_duration_;
  Informer csrs_;
};

}  // namespace cluster
