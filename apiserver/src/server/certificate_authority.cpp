#include "apiserver/certificate_authority.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <ctime>

#include "openssl_io.h"
#include "server/x509_util.h"

namespace apiserver::pki {
namespace {

using x509_util::Deleter;
using x509_util::openssl_error;
using x509_util::PkeyPtr;
using x509_util::X509Ptr;
using ReqPtr = std::unique_ptr<X509_REQ, Deleter<X509_REQ_free>>;
using ExtsPtr = std::unique_ptr<STACK_OF(X509_EXTENSION), void (*)(STACK_OF(X509_EXTENSION)*)>;

// As upstream's signing policy: 5 minutes of backdating, kept off the end of certificates of
// 8 hours or more.
constexpr auto kBackdate = std::chrono::minutes(5);
constexpr auto kShort = std::chrono::hours(8);

void free_extensions(STACK_OF(X509_EXTENSION) * exts) {
  sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
}

// certificates.k8s.io key usages and their OpenSSL names; the extended ones in Go's order of
// x509.ExtKeyUsage, which is the order upstream writes them in.
struct Usage {
  const char* api;
  const char* openssl;
};
constexpr Usage kKeyUsages[] = {
    {"signing", "digitalSignature"},
    {"digital signature", "digitalSignature"},
    {"content commitment", "nonRepudiation"},
    {"key encipherment", "keyEncipherment"},
    {"key agreement", "keyAgreement"},
    {"data encipherment", "dataEncipherment"},
    {"cert sign", "keyCertSign"},
    {"crl sign", "cRLSign"},
    {"encipher only", "encipherOnly"},
    {"decipher only", "decipherOnly"},
};
constexpr Usage kExtKeyUsages[] = {
    {"any", "anyExtendedKeyUsage"},
    {"server auth", "serverAuth"},
    {"client auth", "clientAuth"},
    {"code signing", "codeSigning"},
    {"email protection", "emailProtection"},
    {"s/mime", "emailProtection"},
    {"ipsec end system", "ipsecEndSystem"},
    {"ipsec tunnel", "ipsecTunnel"},
    {"ipsec user", "ipsecUser"},
    {"timestamping", "timeStamping"},
    {"ocsp signing", "OCSPSigning"},
    {"microsoft sgc", "msSGC"},
    {"netscape sgc", "nsSGC"},
};

template <size_t N>
const Usage* find_usage(const Usage (&table)[N], const std::string& api) {
  for (const Usage& u : table) {
    if (api == u.api) {
      return &u;
    }
  }
  return nullptr;
}

// The OpenSSL configuration values ("critical,digitalSignature", "clientAuth") of the key usage
// and extended key usage extensions, each empty when there is none; the error names the usages
// that are neither.
struct UsageExtensions {
  std::string key_usage;
  std::string ext_key_usage;
};
common::Result<UsageExtensions> usage_extensions(const std::vector<std::string>& usages) {
  std::vector<std::string> key;
  std::vector<std::string> unrecognized;
  std::vector<bool> ext(std::size(kExtKeyUsages), false);
  for (const std::string& usage : usages) {
    if (const Usage* u = find_usage(kKeyUsages, usage)) {
      if (std::find(key.begin(), key.end(), u->openssl) == key.end()) {
        key.emplace_back(u->openssl);
      }
    } else if (const Usage* u = find_usage(kExtKeyUsages, usage)) {
      ext[static_cast<size_t>(u - kExtKeyUsages)] = true;
    } else {
      unrecognized.push_back(usage);
    }
  }
  if (!unrecognized.empty()) {
    std::string list;
    for (const std::string& u : unrecognized) {
      list += (list.empty() ? "\"" : " \"") + u + "\"";
    }
    return common::Result<UsageExtensions>::failure("unrecognized usage values: [" + list + "]");
  }
  UsageExtensions out;
  for (const std::string& k : key) {
    out.key_usage += (out.key_usage.empty() ? "critical," : ",") + k;
  }
  std::vector<std::string> seen;
  for (size_t i = 0; i < ext.size(); ++i) {
    const std::string name = kExtKeyUsages[i].openssl;
    if (ext[i] && std::find(seen.begin(), seen.end(), name) == seen.end()) {
      seen.push_back(name);
      out.ext_key_usage += (out.ext_key_usage.empty() ? "" : ",") + name;
    }
  }
  return out;
}

common::Result<ReqPtr> parse_request(std::string_view pem) {
  ERR_clear_error();
  if (pem.find("-----BEGIN CERTIFICATE REQUEST-----") == std::string_view::npos) {
    return common::Result<ReqPtr>::failure("PEM block type must be CERTIFICATE REQUEST");
  }
  openssl_io::BioPtr bio = openssl_io::memory_bio(pem);
  ReqPtr req(PEM_read_bio_X509_REQ(bio.get(), nullptr, openssl_io::no_passphrase, nullptr));
  if (!req) {
    return common::Result<ReqPtr>::failure("unable to parse the certificate request: " +
                                           openssl_error());
  }
  return req;
}

time_t to_time_t(std::chrono::system_clock::time_point t) {
  return std::chrono::system_clock::to_time_t(t);
}

}  // namespace

common::Result<std::string> sign_certificate_request(std::string_view ca_cert_pem,
                                                     std::string_view ca_key_pem,
                                                     std::string_view csr_pem,
                                                     const SigningPolicy& policy) {
  using Failure = common::Result<std::string>;
  std::vector<X509Ptr> cas = x509_util::parse_certs(ca_cert_pem);
  if (cas.size() != 1) {
    return Failure::failure("expected 1 CA certificate, found " + std::to_string(cas.size()));
  }
  X509* ca = cas.front().get();
  auto ca_key = x509_util::parse_key(ca_key_pem);
  if (!ca_key) {
    return Failure::failure("CA key: " + ca_key.error());
  }
  auto req = parse_request(csr_pem);
  if (!req) {
    return Failure::failure(req.error());
  }
  PkeyPtr public_key(X509_REQ_get_pubkey(req->get()));
  if (!public_key || X509_REQ_verify(req->get(), public_key.get()) != 1) {
    ERR_clear_error();
    return Failure::failure("unable to verify certificate request signature");
  }
  auto usages = usage_extensions(policy.usages);
  if (!usages) {
    return Failure::failure(usages.error());
  }

  const auto not_before = policy.now - kBackdate;
  auto not_after = policy.now + policy.ttl;
  if (policy.ttl >= kShort) {
    not_after -= kBackdate;
  }
  ERR_clear_error();
  X509Ptr cert(X509_new());
  bool ok = cert && x509_util::set_random_serial(cert.get());
  ok = ok && X509_set_version(cert.get(), X509_VERSION_3) == 1;
  if (ok) {
    time_t start = to_time_t(not_before);
    time_t end = to_time_t(not_after);
    ok = ASN1_TIME_set(X509_getm_notBefore(cert.get()), start) != nullptr &&
         ASN1_TIME_set(X509_getm_notAfter(cert.get()), end) != nullptr;
    if (ok && ASN1_TIME_compare(X509_get0_notAfter(cert.get()), X509_get0_notAfter(ca)) > 0) {
      ok = X509_set1_notAfter(cert.get(), X509_get0_notAfter(ca)) == 1;
    }
  }
  ok = ok && X509_set_pubkey(cert.get(), public_key.get()) == 1;
  ok = ok && X509_set_subject_name(cert.get(), X509_REQ_get_subject_name(req->get())) == 1;
  ok = ok && X509_set_issuer_name(cert.get(), X509_get_subject_name(ca)) == 1;

  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, ca, cert.get(), nullptr, nullptr, 0);
  if (!usages->key_usage.empty()) {
    ok = ok && x509_util::add_extension(cert.get(), &ctx, NID_key_usage, usages->key_usage.c_str());
  }
  if (!usages->ext_key_usage.empty()) {
    ok = ok && x509_util::add_extension(cert.get(), &ctx, NID_ext_key_usage,
                                        usages->ext_key_usage.c_str());
  }
  ok = ok && x509_util::add_extension(cert.get(), &ctx, NID_basic_constraints, "critical,CA:FALSE");
  ok = ok && x509_util::add_extension(cert.get(), &ctx, NID_authority_key_identifier, "keyid");
  // The request's subject alternative names are its only extension that carries over.
  if (ok) {
    ExtsPtr exts(X509_REQ_get_extensions(req->get()), free_extensions);
    for (int i = 0; exts && i < sk_X509_EXTENSION_num(exts.get()); ++i) {
      X509_EXTENSION* ext = sk_X509_EXTENSION_value(exts.get(), i);
      if (OBJ_obj2nid(X509_EXTENSION_get_object(ext)) == NID_subject_alt_name) {
        ok = X509_add_ext(cert.get(), ext, -1) == 1;
      }
    }
  }
  ok = ok && X509_sign(cert.get(), ca_key->get(), EVP_sha256()) > 0;
  if (!ok) {
    return Failure::failure("signing the certificate: " + openssl_error());
  }
  std::string pem = x509_util::cert_to_pem(cert.get());
  if (pem.empty()) {
    return Failure::failure("encoding the certificate as PEM: " + openssl_error());
  }
  return pem;
}

common::Result<KeyPair> issue_client_certificate(std::string_view ca_cert_pem,
                                                 std::string_view ca_key_pem,
                                                 const std::string& user,
                                                 const std::vector<std::string>& groups,
                                                 std::chrono::seconds ttl) {
  using Failure = common::Result<KeyPair>;
  if (user.empty()) {
    return Failure::failure("the user name is empty");
  }
  auto key = x509_util::generate_key();
  if (!key) {
    return Failure::failure(key.error());
  }
  ERR_clear_error();
  ReqPtr req(X509_REQ_new());
  bool ok = req != nullptr;
  X509_NAME* subject = ok ? X509_REQ_get_subject_name(req.get()) : nullptr;
  for (const std::string& group : groups) {
    ok = ok && X509_NAME_add_entry_by_txt(subject, "O", MBSTRING_UTF8,
                                          reinterpret_cast<const unsigned char*>(group.c_str()), -1,
                                          -1, 0) == 1;
  }
  ok = ok && X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8,
                                        reinterpret_cast<const unsigned char*>(user.c_str()), -1,
                                        -1, 0) == 1;
  ok = ok && X509_REQ_set_pubkey(req.get(), key->get()) == 1;
  ok = ok && X509_REQ_sign(req.get(), key->get(), EVP_sha256()) > 0;
  openssl_io::BioPtr bio(BIO_new(BIO_s_mem()));
  ok = ok && bio && PEM_write_bio_X509_REQ(bio.get(), req.get()) == 1;
  if (!ok) {
    return Failure::failure("creating the certificate request: " + openssl_error());
  }
  SigningPolicy policy;
  policy.usages = {"digital signature", "key encipherment", "client auth"};
  policy.ttl = ttl;
  auto cert = sign_certificate_request(ca_cert_pem, ca_key_pem, openssl_io::bio_contents(bio.get()),
                                       policy);
  if (!cert) {
    return Failure::failure(cert.error());
  }
  KeyPair pair{std::move(*cert), x509_util::key_to_pem(key->get())};
  if (pair.key_pem.empty()) {
    return Failure::failure("encoding the key as PEM: " + openssl_error());
  }
  return pair;
}

}  // namespace apiserver::pki
