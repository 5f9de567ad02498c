// ClusterTrustBundleAttest (plugin/pkg/admission/certificates/ctbattest): a ClusterTrustBundle
// created or updated with a spec.signerName needs the verb "attest" on the signers resource of
// certificates.k8s.io named as that signer or as its domain with "/*"; otherwise 403
// `clustertrustbundles.certificates.k8s.io "<name>" is forbidden: user not permitted to attest
// for signerName "<signer>"`. A bundle without a signer, and an update that only changes what the
// garbage collector writes, need nothing. The resource is served only when --runtime-config turns
// certificates.k8s.io/v1alpha1 on; upstream also needs the ClusterTrustBundle feature gate, which
// kube-sandbox does not have, so here the plugin checks every write of a served bundle.
#include "admission/plugins.h"
#include "admission/plugins/signer_authorization.h"
#include "authorization/escalation.h"
#include "common/go_quote.h"
#include "registry/json_access.h"

namespace apiserver::admission {
namespace {

class ClusterTrustBundleAttest final : public Plugin {
 public:
  explicit ClusterTrustBundleAttest(const Services& services) : services_(services) {}
  std::string_view name() const override { return "ClusterTrustBundleAttest"; }
  bool validates() const override { return true; }

  Decision validate(Attributes& a, std::string& note) override {
    const registry::Resource& r = *a.resource;
    if ((a.operation != Operation::Create && a.operation != Operation::Update) ||
        r.group != "certificates.k8s.io" || r.resource != "clustertrustbundles" ||
        a.object == nullptr) {
      return std::nullopt;
    }
    // The new object's signer (upstream's validation keeps an update from changing it).
    const std::string signer = registry::string_at(*a.object, {"spec", "signerName"});
    if (signer.empty()) {
      return std::nullopt;
    }
    if (a.operation == Operation::Update && a.old_object != nullptr &&
        authorization::only_gc_fields(*a.old_object, *a.object)) {
      return std::nullopt;
    }
    if (!authorized_for_signer(services_.authorizer, a.user, "attest", signer)) {
      return forbidden(a,
                       "user not permitted to attest for signerName " + common::go_quote(signer));
    }
    note = "allowed to attest for signer " + signer;
    return std::nullopt;
  }

 private:
  const Services& services_;
};

}  // namespace

std::unique_ptr<Plugin> make_cluster_trust_bundle_attest(const Services& services) {
  return std::make_unique<ClusterTrustBundleAttest>(services);
}

}  // namespace apiserver::admission
