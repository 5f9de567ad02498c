// Who a TLS client is: the client certificate the handshake verified, with the CA (the client CA
// or the front proxies' CA) that issued it.
#pragma once

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apiserver/http.h"

namespace apiserver::server {

using CaList = std::vector<std::shared_ptr<X509>>;

// The certificates of a PEM bundle.
CaList read_cas(const std::string& pem);

// The verified client certificate, with which trusted CA issued it (`client_cas`, or the front
// proxies' `requestheader_cas`; with only one kind configured, a verified certificate is that
// kind's). nullopt when the client sent none or it did not verify.
std::optional<http::ClientCertificate> peer_certificate(SSL* ssl, const CaList& client_cas,
                                                        const CaList& requestheader_cas);

}  // namespace apiserver::server
