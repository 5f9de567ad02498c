#include "server/tls_identity.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

namespace apiserver::server {

CaList read_cas(const std::string& pem) {
  CaList out;
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  while (X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    out.emplace_back(ca, X509_free);
  }
  BIO_free(bio);
  ERR_clear_error();
  return out;
}

namespace {

bool issued_by_one_of(X509* cert, const CaList& cas) {
  for (const auto& ca : cas) {
    if (X509_check_issued(ca.get(), cert) == X509_V_OK) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<http::ClientCertificate> peer_certificate(SSL* ssl, const CaList& client_cas,
                                                        const CaList& requestheader_cas) {
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) {
    return std::nullopt;
  }
  std::optional<http::ClientCertificate> out;
  if (SSL_get_verify_result(ssl) == X509_V_OK) {
    out.emplace();
    if (!requestheader_cas.empty()) {
      out->from_requestheader_ca = issued_by_one_of(cert, requestheader_cas);
      out->from_client_ca = issued_by_one_of(cert, client_cas) || !out->from_requestheader_ca;
    }
    X509_NAME* subject = X509_get_subject_name(cert);
    auto entries = [&](int nid) {
      std::vector<std::string> values;
      for (int i = X509_NAME_get_index_by_NID(subject, nid, -1); i >= 0;
           i = X509_NAME_get_index_by_NID(subject, nid, i)) {
        ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i));
        values.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                            static_cast<size_t>(ASN1_STRING_length(data)));
      }
      return values;
    };
    auto cn = entries(NID_commonName);
    out->common_name = cn.empty() ? "" : cn.front();
    out->organizations = entries(NID_organizationName);
  }
  X509_free(cert);
  return out;
}

}  // namespace apiserver::server
