// CertificateApproval (plugin/pkg/admission/certificates/approval): a write through a
// CertificateSigningRequest's /approval subresource needs the verb "approve" on the signers
// resource of certificates.k8s.io named as the request's signer (as stored, whatever the write
// says) or as its domain with "/*"; otherwise 403 `certificatesigningrequests.certificates.k8s.io
// "<name>" is forbidden: user not permitted to approve requests with signerName "<signer>"`.
#include "admission/plugins.h"
#include "admission/plugins/signer_authorization.h"
#include "common/go_quote.h"
#include "registry/json_access.h"

namespace apiserver::admission {
namespace {

class CertificateApproval final : public Plugin {
 public:
  explicit CertificateApproval(const Services& services) : services_(services) {}
  std::string_view name() const override { return "CertificateApproval"; }
  bool validates() const override { return true; }

  Decision validate(Attributes& a, std::string& note) override {
    const registry::Resource& r = *a.resource;
    if (a.operation != Operation::Update || r.group != "certificates.k8s.io" ||
        r.resource != "certificatesigningrequests" || a.subresource != "approval" ||
        a.old_object == nullptr) {
      return std::nullopt;
    }
    const std::string signer = registry::string_at(*a.old_object, {"spec", "signerName"});
    if (!authorized_for_signer(services_.authorizer, a.user, "approve", signer)) {
      return forbidden(
          a, "user not permitted to approve requests with signerName " + common::go_quote(signer));
    }
    note = "allowed to approve for signer " + signer;
    return std::nullopt;
  }

 private:
  const Services& services_;
};

}  // namespace

std::unique_ptr<Plugin> make_certificate_approval(const Services& services) {
  return std::make_unique<CertificateApproval>(services);
}

}  // namespace apiserver::admission
