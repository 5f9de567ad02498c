#include "registry/certificate_request.h"

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

#include "openssl_io.h"

namespace apiserver::registry {
namespace {

using RequestPtr = std::unique_ptr<X509_REQ, decltype(&X509_REQ_free)>;

constexpr std::string_view kBegin = "-----BEGIN CERTIFICATE REQUEST-----";

// The request of the first PEM block of `pem` when that block is a CERTIFICATE REQUEST.
RequestPtr parse(std::string_view pem) {
  const size_t at = pem.find("-----BEGIN ");
  if (at == std::string_view::npos || pem.substr(at, kBegin.size()) != kBegin) {
    return RequestPtr(nullptr, X509_REQ_free);
  }
  openssl_io::BioPtr bio = openssl_io::memory_bio(pem.substr(at));
  return RequestPtr(PEM_read_bio_X509_REQ(bio.get(), nullptr, openssl_io::no_passphrase, nullptr),
                    X509_REQ_free);
}

}  // namespace

std::string certificate_request_problem(std::string_view pem) {
  const size_t at = pem.find("-----BEGIN ");
  if (at == std::string_view::npos || pem.substr(at, kBegin.size()) != kBegin) {
    return "PEM block type must be CERTIFICATE REQUEST";
  }
  return parse(pem) ? "" : "x509: malformed certificate request";
}

std::vector<std::string> certificate_request_organizations(std::string_view pem) {
  std::vector<std::string> out;
  RequestPtr req = parse(pem);
  if (!req) {
    return out;
  }
  X509_NAME* subject = X509_REQ_get_subject_name(req.get());
  for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
    X509_NAME_ENTRY* entry = X509_NAME_get_entry(subject, i);
    if (OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry)) != NID_organizationName) {
      continue;
    }
    unsigned char* utf8 = nullptr;
    int size = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
    if (size >= 0) {
      out.emplace_back(reinterpret_cast<char*>(utf8), static_cast<size_t>(size));
      OPENSSL_free(utf8);
    }
  }
  return out;
}

}  // namespace apiserver::registry
