// OpenSSL objects the PKI (pki.cpp) and the certificate authority (certificate_authority.cpp)
// share: owning pointers, PEM in and out, key generation, random serial numbers, extensions.
// Every function clears or drains the thread's OpenSSL error queue before it returns.
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace apiserver::x509_util {

template <auto Free>
struct Deleter {
  template <class T>
  void operator()(T* p) const {
    Free(p);
  }
};
using X509Ptr = std::unique_ptr<X509, Deleter<X509_free>>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;

// The reason for the most recent OpenSSL failure; empties the thread's error queue.
std::string openssl_error();

// Every certificate in `pem`, in order; an empty vector when there is none.
std::vector<X509Ptr> parse_certs(std::string_view pem);

// The first private key in `pem` (encrypted ones are refused).
common::Result<PkeyPtr> parse_key(std::string_view pem);

// PEM text of a certificate or (PKCS#8) private key; empty when encoding fails.
std::string cert_to_pem(X509* cert);
std::string key_to_pem(EVP_PKEY* key);

// A fresh ECDSA P-256 key.
common::Result<PkeyPtr> generate_key();

// Sets a random positive 128-bit serial number; false when it cannot.
bool set_random_serial(X509* cert);

// Adds the extension `nid` with OpenSSL's configuration syntax `value` ("critical,CA:FALSE").
bool add_extension(X509* cert, X509V3_CTX* ctx, int nid, const char* value);

}  // namespace apiserver::x509_util
