// CertificateSubjectRestriction (plugin/pkg/admission/certificates/subjectrestriction): a
// CertificateSigningRequest created for the kubernetes.io/kube-apiserver-client signer whose
// request names the group (O) system:masters is refused: 403 `... is forbidden: use of
// kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed`. A
// request that does not parse never gets here: validation refuses it first.
#include "admission/plugins.h"
#include "common/base64.h"
#include "registry/certificate_request.h"
#include "registry/json_access.h"

namespace apiserver::admission {
namespace {

constexpr const char* kSigner = "kubernetes.io/kube-apiserver-client";

class CertificateSubjectRestriction final : public Plugin {
 public:
  std::string_view name() const override { return "CertificateSubjectRestriction"; }
  bool validates() const override { return true; }

  Decision validate(Attributes& a, std::string&) override {
    const registry::Resource& r = *a.resource;
    if (a.operation != Operation::Create || r.group != "certificates.k8s.io" ||
        r.resource != "certificatesigningrequests" || !a.subresource.empty() ||
        a.object == nullptr || registry::string_at(*a.object, {"spec", "signerName"}) != kSigner) {
      return std::nullopt;
    }
    auto pem = common::base64_decode(registry::string_at(*a.object, {"spec", "request"}));
    if (!pem) {
      return std::nullopt;
    }
    for (const std::string& group : registry::certificate_request_organizations(*pem)) {
      if (group == "system:masters") {
        return forbidden(a, std::string("use of ") + kSigner +
                                " signer with system:masters group is not allowed");
      }
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Plugin> make_certificate_subject_restriction(const Services&) {
  return std::make_unique<CertificateSubjectRestriction>();
}

}  // namespace apiserver::admission
