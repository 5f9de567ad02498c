#include "server/x509_util.h"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

#include "openssl_io.h"

namespace apiserver::x509_util {
namespace {

using openssl_io::bio_contents;
using openssl_io::BioPtr;
using openssl_io::memory_bio;
using openssl_io::no_passphrase;
using BnPtr = std::unique_ptr<BIGNUM, Deleter<BN_free>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION_free>>;

}  // namespace

std::string openssl_error() {
  unsigned long last = 0;
  while (unsigned long e = ERR_get_error()) {
    last = e;
  }
  if (last == 0) {
    return "unknown OpenSSL error";
  }
  const char* reason = ERR_reason_error_string(last);
  return reason != nullptr ? reason : "OpenSSL error " + std::to_string(last);
}

std::vector<X509Ptr> parse_certs(std::string_view pem) {
  std::vector<X509Ptr> certs;
  ERR_clear_error();
  BioPtr bio = memory_bio(pem);
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, no_passphrase, nullptr)) {
    certs.emplace_back(cert);
  }
  ERR_clear_error();  // the read that ended the loop reports "no start line"
  return certs;
}

common::Result<PkeyPtr> parse_key(std::string_view pem) {
  ERR_clear_error();
  BioPtr bio = memory_bio(pem);
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr));
  if (!key) {
    return pem.find("ENCRYPTED") != std::string_view::npos
               ? std::string("encrypted private keys are not supported")
               : "no private key found (" + openssl_error() + ")";
  }
  return key;
}

std::string cert_to_pem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  return bio_contents(bio.get());
}

std::string key_to_pem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  return bio_contents(bio.get());
}

common::Result<PkeyPtr> generate_key() {
  ERR_clear_error();
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) {
    return "generating an ECDSA P-256 key: " + openssl_error();
  }
  return key;
}

bool set_random_serial(X509* cert) {
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) {
    return false;
  }
  serial[0] = static_cast<unsigned char>((serial[0] & 0x7f) | 0x40);  // positive, 16 bytes
  BnPtr bn(BN_bin2bn(serial, sizeof serial, nullptr));
  return bn && BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert)) != nullptr;
}

bool add_extension(X509* cert, X509V3_CTX* ctx, int nid, const char* value) {
  ExtPtr ext(X509V3_EXT_nconf_nid(nullptr, ctx, nid, value));
  return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

}  // namespace apiserver::x509_util
