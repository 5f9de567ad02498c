// A real PEM certificate request (PKCS#10, signed by a fresh key) for the tests of
// CertificateSigningRequests and their admission.
#pragma once

#include <openssl/pem.h>

#include <catch2/catch.hpp>
#include <string>

#include "server/x509_util.h"

namespace apiserver::testing {

// A real PEM certificate request (signed by a fresh key) for CN alice, in `group` when given.
inline std::string request_pem(const char* group = nullptr) {
  auto key = apiserver::x509_util::generate_key();
  REQUIRE(key);
  X509_REQ* req = X509_REQ_new();
  if (group != nullptr) {
    X509_NAME_add_entry_by_txt(X509_REQ_get_subject_name(req), "O", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(group), -1, -1, 0);
  }
  X509_NAME_add_entry_by_txt(X509_REQ_get_subject_name(req), "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>("alice"), -1, -1, 0);
  X509_REQ_set_pubkey(req, key->get());
  REQUIRE(X509_REQ_sign(req, key->get(), EVP_sha256()) > 0);
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509_REQ(bio, req);
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(size));
  BIO_free(bio);
  X509_REQ_free(req);
  return pem;
}

}  // namespace apiserver::testing
