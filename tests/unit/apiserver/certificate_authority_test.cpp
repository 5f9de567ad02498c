#include "apiserver/certificate_authority.h"

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <catch2/catch.hpp>
#include <ctime>

#include "../temp_dir.h"
#include "openssl_io.h"
#include "server/x509_util.h"

namespace pki = apiserver::pki;
using apiserver::x509_util::Deleter;
using apiserver::x509_util::PkeyPtr;
using apiserver::x509_util::X509Ptr;

namespace {

using ReqPtr = std::unique_ptr<X509_REQ, Deleter<X509_REQ_free>>;

// A PEM certificate request of `key` for O=devs, CN=alice with DNS name alice.example; when
// `claimed` is given, the request names that key instead of the one that signed it.
std::string make_request(EVP_PKEY* key, EVP_PKEY* claimed = nullptr) {
  ReqPtr req(X509_REQ_new());
  X509_NAME* name = X509_REQ_get_subject_name(req.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>("devs"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>("alice"), -1, -1, 0);
  STACK_OF(X509_EXTENSION)* exts = sk_X509_EXTENSION_new_null();
  sk_X509_EXTENSION_push(
      exts, X509V3_EXT_conf_nid(nullptr, nullptr, NID_subject_alt_name, "DNS:alice.example"));
  X509_REQ_add_extensions(req.get(), exts);
  sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
  X509_REQ_set_pubkey(req.get(), key);
  REQUIRE(X509_REQ_sign(req.get(), key, EVP_sha256()) > 0);
  if (claimed != nullptr) {
    X509_REQ_set_pubkey(req.get(), claimed);  // the signature no longer matches
  }
  apiserver::openssl_io::BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509_REQ(bio.get(), req.get());
  return apiserver::openssl_io::bio_contents(bio.get());
}

X509Ptr parse(const std::string& pem) {
  auto certs = apiserver::x509_util::parse_certs(pem);
  REQUIRE(certs.size() == 1);
  return std::move(certs.front());
}

time_t seconds_of(const ASN1_TIME* t) {
  std::tm tm{};
  REQUIRE(ASN1_TIME_to_tm(t, &tm) == 1);
  return timegm(&tm);
}

std::string extension_text(X509* cert, int nid) {
  int at = X509_get_ext_by_NID(cert, nid, -1);
  if (at < 0) {
    return "";
  }
  apiserver::openssl_io::BioPtr bio(BIO_new(BIO_s_mem()));
  X509V3_EXT_print(bio.get(), X509_get_ext(cert, at), 0, 0);
  return apiserver::openssl_io::bio_contents(bio.get());
}

struct Ca {
  testing_support::TempDir dir;
  pki::Pki pki;
  Ca() {
    auto made = pki::ensure_pki(dir.path() / "pki", {});
    REQUIRE(made);
    pki = std::move(*made);
  }
};

}  // namespace

TEST_CASE("the CA signs a request with its subject, its names and the usages asked for",
          "[pki][csr]") {
  Ca ca;
  auto key = apiserver::x509_util::generate_key();
  REQUIRE(key);
  const auto now = std::chrono::system_clock::from_time_t(1'800'000'000);
  pki::SigningPolicy policy;
  policy.usages = {"client auth", "digital signature", "key encipherment"};
  policy.now = now;

  SECTION("a short certificate ends exactly its duration after now") {
    policy.ttl = std::chrono::hours(1);
    auto signed_pem = pki::sign_certificate_request(ca.pki.ca_cert_pem, ca.pki.ca_key_pem,
                                                    make_request(key->get()), policy);
    REQUIRE(signed_pem);
    X509Ptr cert = parse(*signed_pem);
    CHECK(seconds_of(X509_get0_notBefore(cert.get())) == 1'800'000'000 - 300);
    CHECK(seconds_of(X509_get0_notAfter(cert.get())) == 1'800'000'000 + 3600);
    CHECK(extension_text(cert.get(), NID_key_usage) == "Digital Signature, Key Encipherment");
    CHECK(extension_text(cert.get(), NID_ext_key_usage) == "TLS Web Client Authentication");
    CHECK(extension_text(cert.get(), NID_subject_alt_name) == "DNS:alice.example");
    CHECK(extension_text(cert.get(), NID_basic_constraints) == "CA:FALSE");
    CHECK(X509_check_private_key(cert.get(), key->get()) == 1);
    char subject[256] = {};
    X509_NAME_oneline(X509_get_subject_name(cert.get()), subject, sizeof subject);
    CHECK(std::string(subject) == "/O=devs/CN=alice");
  }
  SECTION("one of 8 hours or more loses the 5 minutes of backdating at its end too") {
    policy.ttl = std::chrono::hours(24);
    auto signed_pem = pki::sign_certificate_request(ca.pki.ca_cert_pem, ca.pki.ca_key_pem,
                                                    make_request(key->get()), policy);
    REQUIRE(signed_pem);
    CHECK(seconds_of(X509_get0_notAfter(parse(*signed_pem).get())) ==
          1'800'000'000 + 24 * 3600 - 300);
  }
  SECTION("none outlives the CA") {
    policy.now = std::chrono::system_clock::now();
    policy.ttl = std::chrono::hours(24 * 365 * 20);
    auto signed_pem = pki::sign_certificate_request(ca.pki.ca_cert_pem, ca.pki.ca_key_pem,
                                                    make_request(key->get()), policy);
    REQUIRE(signed_pem);
    X509Ptr ca_cert = parse(ca.pki.ca_cert_pem);
    CHECK(seconds_of(X509_get0_notAfter(parse(*signed_pem).get())) ==
          seconds_of(X509_get0_notAfter(ca_cert.get())));
  }
  SECTION("server usages make a server certificate") {
    policy.usages = {"server auth", "client auth", "signing"};
    auto signed_pem = pki::sign_certificate_request(ca.pki.ca_cert_pem, ca.pki.ca_key_pem,
                                                    make_request(key->get()), policy);
    REQUIRE(signed_pem);
    X509Ptr cert = parse(*signed_pem);
    CHECK(extension_text(cert.get(), NID_ext_key_usage) ==
          "TLS Web Server Authentication, TLS Web Client Authentication");
    CHECK(extension_text(cert.get(), NID_key_usage) == "Digital Signature");
  }
}

TEST_CASE("the CA refuses requests it cannot sign, with upstream's reasons", "[pki][csr]") {
  Ca ca;
  auto key = apiserver::x509_util::generate_key();
  auto other = apiserver::x509_util::generate_key();
  REQUIRE(key);
  REQUIRE(other);
  pki::SigningPolicy policy;
  policy.usages = {"client auth"};
  std::string request = make_request(key->get());
  std::string expected;
  SECTION("not a certificate request") {
    request = ca.pki.ca_cert_pem;
    expected = "PEM block type must be CERTIFICATE REQUEST";
  }
  SECTION("a signature that is not the named key's") {
    request = make_request(key->get(), other->get());
    expected = "unable to verify certificate request signature";
  }
  SECTION("usages that are no key usages") {
    policy.usages = {"client auth", "bogus", "x"};
    expected = "unrecognized usage values: [\"bogus\" \"x\"]";
  }
  auto signed_pem =
      pki::sign_certificate_request(ca.pki.ca_cert_pem, ca.pki.ca_key_pem, request, policy);
  REQUIRE_FALSE(signed_pem);
  CHECK(signed_pem.error() == expected);
}

TEST_CASE("a client certificate issued for a user names the user and its groups", "[pki][csr]") {
  Ca ca;
  auto pair = pki::issue_client_certificate(ca.pki.ca_cert_pem, ca.pki.ca_key_pem, "alice",
                                            {"devs", "qa"}, std::chrono::hours(24));
  REQUIRE(pair);
  CHECK_FALSE(pki::check_key_pair(pair->cert_pem, pair->key_pem));
  auto identity = pki::verify_client_certificate(pair->cert_pem, ca.pki.ca_cert_pem);
  REQUIRE(identity);
  CHECK(identity->common_name == "alice");
  CHECK(identity->organizations == std::vector<std::string>{"devs", "qa"});

  auto nameless = pki::issue_client_certificate(ca.pki.ca_cert_pem, ca.pki.ca_key_pem, "", {},
                                                std::chrono::hours(1));
  REQUIRE_FALSE(nameless);
  CHECK(nameless.error() == "the user name is empty");
}
