// What kube-controller-manager's csrsigning controller decides about a CertificateSigningRequest,
// as pure functions: whether it is for this signer and ready to sign, whether its usages suit
// the kube-apiserver-client signer, and for how long its certificate is valid.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cluster {

inline constexpr const char* kKubeApiServerClientSigner = "kubernetes.io/kube-apiserver-client";

// Approved and not Denied (certificates.IsCertificateRequestApproved), not Failed, for the
// kube-apiserver-client signer, and no certificate yet. The legacy-unknown signer never is.
bool wants_signing(const nlohmann::json& csr);

// The kube-apiserver-client signer's usage rule: "client auth" is required, "digital signature"
// and "key encipherment" are allowed, nothing else. nullopt when they fit, else upstream's text:
// "invalid usage for client certificate: server auth" or
// "missing required usage for client certificate: client auth".
std::optional<std::string> client_usages_problem(const std::vector<std::string>& usages);

// How long the certificate is valid: `limit` (--cluster-signing-duration) unless
// spec.expirationSeconds asks for less, and never under 10 minutes.
std::chrono::seconds signing_duration(std::chrono::seconds limit,
                                      std::optional<int64_t> expiration_seconds);

// The Failed condition the signer adds when the request does not suit it.
nlohmann::json failed_condition(const std::string& message, const std::string& now);

}  // namespace cluster
