// The sandbox's PKI: a private CA, the API server's serving certificate, the admin's client
// certificate and an admin bearer token, kept as PEM files in one directory, as kube-apiserver
// users expect them (--client-ca-file, --tls-cert-file, --tls-private-key-file).
//
// Layout of the PKI directory (created with mode 0700):
//
//   ca.crt       self-signed CA, CN "kube-sandbox-ca", 10 years               (0644)
//   ca.key                                                                     (0600)
//   serving.crt  CN "kube-apiserver", serverAuth, 1 year, SANs below           (0644)
//   serving.key                                                                (0600)
//   admin.crt    CN "kube-sandbox-admin", O "system:masters", clientAuth, 1 year (0644)
//   admin.key                                                                  (0600)
//   admin.token  64 hex characters (32 random bytes) and a newline             (0600)
//   front-proxy-ca.crt      self-signed CA, CN "front-proxy-ca", 10 years       (0644)
//   front-proxy-ca.key                                                         (0600)
//   front-proxy-client.crt  CN "front-proxy-client", clientAuth, 1 year          (0644)
//   front-proxy-client.key                                                     (0600)
//
// The front-proxy pair is what the aggregation layer presents to extension API servers
// (kube-apiserver's --proxy-client-cert-file, --requestheader-client-ca-file), named as kubeadm
// names them; it is renewed by the same rules as the main CA and its leaves.
//
// Keys are ECDSA P-256, written as PKCS#8 PEM ("BEGIN PRIVATE KEY"), which Go's crypto/tls (and
// so kubectl) accepts. Certificates are signed with SHA-256.
//
// Every function here is thread-safe and returns expected failures (missing file, bad PEM,
// mismatched key, failed verification, I/O error) as values, never by throwing.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace apiserver::pki {

inline constexpr const char* kCaCommonName = "kube-sandbox-ca";
inline constexpr const char* kServingCommonName = "kube-apiserver";
inline constexpr const char* kAdminCommonName = "kube-sandbox-admin";
inline constexpr const char* kAdminOrganization = "system:masters";
inline constexpr const char* kFrontProxyCaCommonName = "front-proxy-ca";
inline constexpr const char* kFrontProxyClientCommonName = "front-proxy-client";

// The web console's login token, in the PKI directory.
inline constexpr const char* kWebConsoleTokenFile = "web-console.token";

// What ensure_pki() found or made. The PEM strings are the files' exact contents.
struct Pki {
  std::filesystem::path dir;
  std::filesystem::path ca_cert_file, ca_key_file;
  std::filesystem::path serving_cert_file, serving_key_file;
  std::filesystem::path admin_cert_file, admin_key_file;
  std::filesystem::path admin_token_file;
  std::filesystem::path web_console_token_file;  // the web console's login secret
  std::filesystem::path front_proxy_ca_cert_file, front_proxy_ca_key_file;
  std::filesystem::path front_proxy_client_cert_file, front_proxy_client_key_file;

  std::string ca_cert_pem, ca_key_pem;
  std::string serving_cert_pem, serving_key_pem;
  std::string admin_cert_pem, admin_key_pem;
  std::string admin_token;        // without the trailing newline
  std::string web_console_token;  // likewise
  std::string front_proxy_ca_cert_pem;
  std::string front_proxy_client_cert_pem, front_proxy_client_key_pem;

  // File names (e.g. "serving.crt") this call wrote, in the order written; empty when everything
  // was reused.
  std::vector<std::string> written;
};

// The serving certificate's subject alternative names before any extra ones, in the form
// "DNS:<name>" or "IP:<address>": DNS localhost, kubernetes, kubernetes.default,
// kubernetes.default.svc, kubernetes.default.svc.cluster.local, the machine's host name
// (gethostname, lower-cased; left out if it is empty or not a valid DNS name), IP 127.0.0.1,
// IP ::1, IP 10.96.0.1.
std::vector<std::string> default_serving_sans();

// Ensures the PKI directory holds a complete, consistent PKI and returns it.
//
// `extra_sans` are more host names or IP addresses for the serving certificate, each either bare
// ("example.test", "192.0.2.7", "fd00::1") or prefixed ("DNS:example.test", "IP:192.0.2.7").
// Names are compared case-insensitively and addresses in their canonical form.
//
// Creates `dir` (and its parents) if missing. Existing files are loaded and reused; only what is
// missing or no longer fits is (re)generated:
//   - the CA when ca.crt or ca.key is missing or the CA expires within 30 days (which also
//     regenerates both leaf certificates);
//   - a leaf pair when either file is missing, its key does not match, it no longer verifies
//     against the CA, or it expires within 30 days;
//   - the serving pair also when its SAN set differs from default_serving_sans() + extra_sans;
//   - the token when admin.token is missing.
// A file that exists but cannot be parsed (or a CA whose key does not match its certificate) is
// an error: it is never overwritten, delete it to regenerate. Every file is written atomically
// (temporary file, fsync, rename). Concurrent callers, in this or other processes, are serialised
// by an flock on `<dir>/.lock`.
//
// Fails with one line naming the file and the cause; an invalid entry in `extra_sans` fails
// before anything is written.
common::Result<Pki> ensure_pki(const std::filesystem::path& dir,
                               const std::vector<std::string>& extra_sans);

// A certificate chain (leaf first) and its private key, as PEM.
struct KeyPair {
  std::string cert_pem;
  std::string key_pem;
};

// Checks that `cert_pem` holds at least one certificate and that `key_pem` holds the private key
// of the first one. nullopt when they do, else what is wrong.
std::optional<std::string> check_key_pair(std::string_view cert_pem, std::string_view key_pem);

// Reads a certificate chain and its key from PEM files (--tls-cert-file, --tls-private-key-file)
// and checks them with check_key_pair(). Errors name the file: "<path>: no certificate found".
common::Result<KeyPair> load_key_pair(const std::filesystem::path& cert_file,
                                      const std::filesystem::path& key_file);

// Who a verified client certificate says the caller is. As kube-apiserver's x509 authenticator
// does, the API server takes the user name from the subject's CN and the groups from its O
// entries (in the certificate's order).
struct ClientIdentity {
  std::string common_name;
  std::vector<std::string> organizations;
};

// Verifies `chain_pem` (the client certificate first, then any intermediates) against the CA
// certificates in `ca_pem` at the current time, for the TLS client purpose (so the leaf must
// allow clientAuth), and returns its identity. An empty CN is an error, as it is for
// kube-apiserver. Fails with what is wrong, e.g. "client certificate: certificate has expired".
common::Result<ClientIdentity> verify_client_certificate(std::string_view chain_pem,
                                                         std::string_view ca_pem);

}  // namespace apiserver::pki
