// kube-apiserver's certificate admission plugins, as the generic store's admission of
// CertificateSigningRequest writes (registry/generic/store.h Admission):
//   CertificateSubjectRestriction: a create for the kubernetes.io/kube-apiserver-client signer
//     whose request names the group system:masters is refused;
//   CertificateApproval: a write through /approval needs the verb "approve" on the signers
//     resource of certificates.k8s.io, named as the request's signer or "<domain>/*";
//   CertificateSigning: a write through /status that changes the certificate or the conditions
//     needs the verb "sign" there.
// Each refusal is a 403 Forbidden with upstream's text, e.g.
//   certificatesigningrequests.certificates.k8s.io "alice" is forbidden: user not permitted to
//   approve requests with signerName "kubernetes.io/kube-apiserver-client"
#pragma once

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "authorization/authorizer.h"
#include "endpoints/resources.h"
#include "registry/generic/store.h"

namespace apiserver::endpoints {

// The admission of a write of `r` by `request` (empty for every other resource). The references
// must outlive the write.
registry::Admission certificate_admission(const authorization::Authorizer& authorizer,
                                          const registry::Resource& r, const RequestInfo& info,
                                          const http::Request& request);

}  // namespace apiserver::endpoints
