// The admin kubeconfig: a cluster, a user and a context, all named "kube-sandbox", with the CA
// and the client certificate and key embedded as base64 *-data fields, so the file works from
// any directory and needs no other file.
//
// Authentication: the user entry carries the admin client certificate, and the bearer token only
// when one is passed. kubectl accepts both together (client-go counts a client certificate apart
// from the token/basic-auth choice) and then sends both: the certificate in the TLS handshake and
// "Authorization: Bearer" on every request; kube-apiserver tries its x509 authenticator before
// its token authenticators, so the certificate decides. The sandbox's own kubeconfig therefore
// omits the token, which would only be a second copy of a credential; the token is for clients
// that cannot present a certificate (curl, scripts).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace sandbox {

inline constexpr const char* kKubeconfigName = "kube-sandbox";

// The YAML text of a kubeconfig (apiVersion v1, kind Config) whose cluster, user and context are
// named "kube-sandbox" and whose current-context is "kube-sandbox". `server_url` is written as
// given (e.g. "https://127.0.0.1:6443"); the PEM arguments are embedded byte for byte, base64
// encoded; `token`, when set and not empty, is added to the user entry. Never fails.
std::string make_kubeconfig(const std::string& server_url, const std::string& ca_pem,
                            const std::string& client_cert_pem, const std::string& client_key_pem,
                            const std::optional<std::string>& token = std::nullopt);

// Writes `text` to `path` atomically (a temporary file in the same directory, fsync, rename) with
// mode 0600, creating missing parent directories with mode 0700. When `path` is a symbolic link
// the file it points to is replaced and the link kept. Returns nullopt when written, else the
// error (naming the path and the cause); the old file is then untouched.
std::optional<std::string> write_kubeconfig(const std::filesystem::path& path,
                                            const std::string& text);

// Adds the clusters, users and contexts of `sandbox_text` (a make_kubeconfig() result) to the
// kubeconfig at `existing_path`, replacing entries of the same name, and sets current-context to
// "kube-sandbox". Every other entry and field keeps its value and its place; entries are
// matched by their `name`. Creates the file when missing. Written with write_kubeconfig().
//
// The file is parsed and re-emitted, so comments and the original layout are not kept (kubectl
// drops them too when it edits a kubeconfig); scalars that were quoted stay quoted, so strings
// such as "true" or "0123" remain strings. Returns nullopt when written, else the error; the file
// is not touched when it is not valid YAML or not a kubeconfig shape, e.g.
// "<path>: contexts: expected a list".
std::optional<std::string> merge_kubeconfig(const std::filesystem::path& existing_path,
                                            const std::string& sandbox_text);

}  // namespace sandbox
