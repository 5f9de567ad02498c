// What the certificate plugins (CertificateApproval, CertificateSigning, ClusterTrustBundleAttest)
// ask the authorizers: whether a user holds a verb ("approve", "sign", "attest") on the
// certificates.k8s.io `signers` resource named as the signer ("example.com/foo"), or named as its
// domain with "/*" ("example.com/*"), as upstream's certauthorization.IsAuthorizedForSignerName.
// Thread-safe (the authorizer is).
#pragma once

#include <string>

#include "admission/attributes.h"

namespace apiserver::authorization {
class Authorizer;
}

namespace apiserver::admission {

bool authorized_for_signer(const authorization::Authorizer& authorizer, const UserInfo& user,
                           const std::string& verb, const std::string& signer);

}  // namespace apiserver::admission
