// PEM text in and out of OpenSSL, shared by the PKI (server/pki.cpp) and the service-account keys
// (serviceaccount/keys.cpp): memory BIOs, their contents, and a passphrase callback that refuses
// to prompt. Header-only; whoever includes it links OpenSSL's libcrypto.
#pragma once

#include <openssl/bio.h>

#include <memory>
#include <string>
#include <string_view>

namespace apiserver::openssl_io {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free_all(bio); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;

// A read-only BIO over `text`, which must outlive it.
inline BioPtr memory_bio(std::string_view text) {
  return BioPtr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

// What was written to a memory BIO.
inline std::string bio_contents(BIO* bio) {
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  return size > 0 ? std::string(data, static_cast<size_t>(size)) : std::string();
}

// A pem_password_cb that refuses to prompt on the terminal for an encrypted key's passphrase.
inline int no_passphrase(char*, int, int, void*) {
  return -1;
}

}  // namespace apiserver::openssl_io
