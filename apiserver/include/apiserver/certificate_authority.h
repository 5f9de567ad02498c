// The cluster CA as a signer of client certificates: what kube-controller-manager's csrsigning
// controller does with --cluster-signing-cert-file and --cluster-signing-key-file (its local
// signer), and a shortcut that issues a key and certificate at once for the `kubeconfig` command.
//
// Thread-safe; failures are returned as values, never thrown.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/pki.h"
#include "common/result.h"

namespace apiserver::pki {

// How a request is signed, as upstream's permissive signing policy: the certificate is valid from
// `now` less 5 minutes until `now` + `ttl` (less those 5 minutes again when `ttl` is 8 hours or
// more), never past the CA's own end.
struct SigningPolicy {
  // certificates.k8s.io/v1 key usages ("digital signature", "client auth", ...): the key usage
  // and extended key usage extensions.
  std::vector<std::string> usages;
  std::chrono::seconds ttl{std::chrono::hours(24 * 365)};
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
};

// Signs the PEM CERTIFICATE REQUEST `csr_pem` with the CA (`ca_cert_pem`, `ca_key_pem`): the
// certificate keeps the request's subject and subject alternative names and public key, nothing
// else from it. Returns the certificate as PEM. Fails when the request does not parse
// ("PEM block type must be CERTIFICATE REQUEST"), its signature does not verify ("unable to
// verify certificate request signature"), a usage is unknown ("unrecognized usage values:
// [\"x\"]", Go's %q of the list) or the CA does not load.
common::Result<std::string> sign_certificate_request(std::string_view ca_cert_pem,
                                                     std::string_view ca_key_pem,
                                                     std::string_view csr_pem,
                                                     const SigningPolicy& policy);

// A fresh ECDSA P-256 key and a client certificate for it (CN `user`, one O per group, usages
// digital signature, key encipherment and client auth), signed by the CA for `ttl`.
common::Result<KeyPair> issue_client_certificate(std::string_view ca_cert_pem,
                                                 std::string_view ca_key_pem,
                                                 const std::string& user,
                                                 const std::vector<std::string>& groups,
                                                 std::chrono::seconds ttl);

}  // namespace apiserver::pki
