// CertificateSigning (plugin/pkg/admission/certificates/signing): a write through a
// CertificateSigningRequest's /status subresource that changes status.certificate or
// status.conditions needs the verb "sign" on the signers resource of certificates.k8s.io named as
// the request's signer (as stored) or as its domain with "/*"; otherwise 403 `... is forbidden:
// user not permitted to sign requests with signerName "<signer>"`.
#include "admission/plugins.h"
#include "admission/plugins/signer_authorization.h"
#include "common/go_quote.h"
#include "registry/json_access.h"

namespace apiserver::admission {
namespace {

using nlohmann::json;

// status.certificate, "" when unset.
std::string certificate(const json& csr) {
  return registry::string_at(csr, {"status", "certificate"});
}

// status.conditions, an empty list when unset (Go's Semantic equality takes nil and empty
// slices as equal).
json conditions(const json& csr) {
  const json* list = registry::find_path(csr, {"status", "conditions"});
  return list != nullptr && !list->is_null() ? *list : json::array();
}

class CertificateSigning final : public Plugin {
 public:
  explicit CertificateSigning(const Services& services) : services_(services) {}
  std::string_view name() const override { return "CertificateSigning"; }
  bool validates() const override { return true; }

  Decision validate(Attributes& a, std::string& note) override {
    const registry::Resource& r = *a.resource;
    if (a.operation != Operation::Update || r.group != "certificates.k8s.io" ||
        r.resource != "certificatesigningrequests" || a.subresource != "status" ||
        a.object == nullptr || a.old_object == nullptr) {
      return std::nullopt;
    }
    if (certificate(*a.old_object) == certificate(*a.object) &&
        conditions(*a.old_object) == conditions(*a.object)) {
      return std::nullopt;  // neither the certificate nor the conditions change
    }
    const std::string signer = registry::string_at(*a.old_object, {"spec", "signerName"});
    if (!authorized_for_signer(services_.authorizer, a.user, "sign", signer)) {
      return forbidden(
          a, "user not permitted to sign requests with signerName " + common::go_quote(signer));
    }
    note = "allowed to sign for signer " + signer;
    return std::nullopt;
  }

 private:
  const Services& services_;
};

}  // namespace

std::unique_ptr<Plugin> make_certificate_signing(const Services& services) {
  return std::make_unique<CertificateSigning>(services);
}

}  // namespace apiserver::admission
