#include "apiserver/pki.h"

#include <arpa/inet.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "../temp_dir.h"

namespace fs = std::filesystem;
namespace pki = apiserver::pki;

namespace {

using testing_support::mode_of;
using testing_support::overwrite_file;
using testing_support::read_file;
using testing_support::TempDir;

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
using Cert = std::unique_ptr<X509, X509Free>;

Cert parse_cert(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  Cert cert(PEM_read_bio_X509(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  REQUIRE(cert);
  return cert;
}

const std::vector<std::string> kFiles = {"ca.crt",    "ca.key",    "serving.crt", "serving.key",
                                         "admin.crt", "admin.key", "admin.token"};

std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const std::string& name : kFiles) {
    files[name] = read_file(dir / name);
  }
  return files;
}

std::string common_name(X509* cert) {
  char buf[256] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, buf, sizeof buf);
  return buf;
}

bool critical(X509* cert, int nid) {
  int index = X509_get_ext_by_NID(cert, nid, -1);
  return index >= 0 && X509_EXTENSION_get_critical(X509_get_ext(cert, index)) == 1;
}

int days_left(X509* cert) {
  int days = 0;
  int seconds = 0;
  REQUIRE(ASN1_TIME_diff(&days, &seconds, nullptr, X509_get0_notAfter(cert)) == 1);
  return days;
}

// Verifies with OpenSSL directly, independently of the code under test.
bool verifies(X509* leaf, X509* ca, int purpose) {
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, leaf, nullptr);
  X509_STORE_CTX_set_purpose(ctx, purpose);
  bool ok = X509_verify_cert(ctx) == 1;
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  return ok;
}

std::set<std::string> sans_of(X509* cert) {
  std::set<std::string> sans;
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  REQUIRE(names != nullptr);
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
    if (name->type == GEN_DNS) {
      sans.insert("DNS:" +
                  std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(name->d.dNSName)),
                              ASN1_STRING_length(name->d.dNSName)));
    } else if (name->type == GEN_IPADD) {
      ASN1_OCTET_STRING* ip = name->d.iPAddress;
      char text[INET6_ADDRSTRLEN] = {};
      int family = ASN1_STRING_length(ip) == 4 ? AF_INET : AF_INET6;
      ::inet_ntop(family, ASN1_STRING_get0_data(ip), text, sizeof text);
      sans.insert(std::string("IP:") + text);
    }
  }
  GENERAL_NAMES_free(names);
  return sans;
}

std::string host_name() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  std::string name = host;
  for (char& c : name) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return name;
}

pki::Pki ensure(const fs::path& dir, const std::vector<std::string>& extra = {}) {
  auto result = pki::ensure_pki(dir, extra);
  INFO((result ? std::string() : result.error()));
  REQUIRE(result);
  return std::move(*result);
}

// The error of a call that must fail.
template <class Result>
std::string error_of(const Result& result) {
  REQUIRE_FALSE(result);
  return result.error();
}

}  // namespace

TEST_CASE("ensure_pki creates a CA, a serving and an admin certificate", "[pki]") {
  TempDir tmp("ks-pki-test");
  fs::path dir = tmp.path() / "data" / "pki";
  pki::Pki p = ensure(dir);

  CHECK(p.written == std::vector<std::string>{
                         "ca.key", "ca.crt", "serving.key", "serving.crt", "admin.key", "admin.crt",
                         "front-proxy-ca.key", "front-proxy-ca.crt", "front-proxy-client.key",
                         "front-proxy-client.crt", "admin.token", "web-console.token"});
  CHECK(p.ca_cert_file == dir / "ca.crt");
  CHECK(p.admin_token_file == dir / "admin.token");
  CHECK(mode_of(dir) == 0700);
  for (const char* name :
       {"ca.key", "serving.key", "admin.key", "admin.token", "web-console.token"}) {
    CAPTURE(name);
    CHECK(mode_of(dir / name) == 0600);
  }
  for (const char* name : {"ca.crt", "serving.crt", "admin.crt"}) {
    CAPTURE(name);
    CHECK(mode_of(dir / name) == 0644);
  }
  CHECK(read_file(p.ca_cert_file) == p.ca_cert_pem);
  CHECK(read_file(p.ca_key_file) == p.ca_key_pem);
  CHECK(read_file(p.serving_cert_file) == p.serving_cert_pem);
  CHECK(read_file(p.serving_key_file) == p.serving_key_pem);
  CHECK(read_file(p.admin_cert_file) == p.admin_cert_pem);
  CHECK(read_file(p.admin_key_file) == p.admin_key_pem);
  CHECK(read_file(p.admin_token_file) == p.admin_token + "\n");
  CHECK(read_file(p.web_console_token_file) == p.web_console_token + "\n");
  CHECK(p.web_console_token.size() == 64);
  CHECK(p.web_console_token != p.admin_token);

  Cert ca = parse_cert(p.ca_cert_pem);
  Cert serving = parse_cert(p.serving_cert_pem);
  Cert admin = parse_cert(p.admin_cert_pem);

  SECTION("the front-proxy client is signed by its own CA, for client auth only") {
    CHECK(read_file(p.front_proxy_client_cert_file) == p.front_proxy_client_cert_pem);
    CHECK(read_file(p.front_proxy_ca_cert_file) == p.front_proxy_ca_cert_pem);
    CHECK(mode_of(p.front_proxy_client_key_file) == 0600);
    auto identity =
        pki::verify_client_certificate(p.front_proxy_client_cert_pem, p.front_proxy_ca_cert_pem);
    REQUIRE(identity);
    CHECK(identity->common_name == "front-proxy-client");
    CHECK(identity->organizations.empty());
    CHECK(common_name(parse_cert(p.front_proxy_ca_cert_pem).get()) == "front-proxy-ca");
    CHECK_FALSE(pki::verify_client_certificate(p.front_proxy_client_cert_pem, p.ca_cert_pem));
    CHECK(ensure(dir).written.empty());
  }
  SECTION("the CA is a self-signed, 10-year P-256 CA with critical constraints") {
    CHECK(common_name(ca.get()) == "kube-sandbox-ca");
    CHECK(X509_check_ca(ca.get()) == 1);
    CHECK(critical(ca.get(), NID_basic_constraints));
    CHECK(critical(ca.get(), NID_key_usage));
    CHECK(X509_get_key_usage(ca.get()) == (KU_KEY_CERT_SIGN | KU_CRL_SIGN | KU_DIGITAL_SIGNATURE));
    CHECK(X509_check_issued(ca.get(), ca.get()) == X509_V_OK);
    CHECK(verifies(ca.get(), ca.get(), X509_PURPOSE_ANY));
    CHECK(days_left(ca.get()) >= 3649);
    CHECK(days_left(ca.get()) <= 3650);
    EVP_PKEY* key = X509_get0_pubkey(ca.get());
    CHECK(EVP_PKEY_is_a(key, "EC") == 1);
    char group[64] = {};
    REQUIRE(EVP_PKEY_get_group_name(key, group, sizeof group, nullptr) == 1);
    CHECK(std::string(group) == "prime256v1");
    CHECK(p.ca_key_pem.rfind("-----BEGIN PRIVATE KEY-----\n", 0) == 0);
  }

  SECTION("the serving certificate verifies for serverAuth and names the API server") {
    CHECK(common_name(serving.get()) == "kube-apiserver");
    CHECK(verifies(serving.get(), ca.get(), X509_PURPOSE_SSL_SERVER));
    CHECK_FALSE(verifies(serving.get(), ca.get(), X509_PURPOSE_SSL_CLIENT));
    CHECK(X509_get_extended_key_usage(serving.get()) == XKU_SSL_SERVER);
    CHECK(X509_check_ca(serving.get()) == 0);
    CHECK(days_left(serving.get()) >= 364);
    CHECK(days_left(serving.get()) <= 365);

    std::set<std::string> expected = {"DNS:localhost",
                                      "DNS:kubernetes",
                                      "DNS:kubernetes.default",
                                      "DNS:kubernetes.default.svc",
                                      "DNS:kubernetes.default.svc.cluster.local",
                                      "IP:127.0.0.1",
                                      "IP:::1",
                                      "IP:10.96.0.1"};
    expected.insert("DNS:" + host_name());
    CHECK(sans_of(serving.get()) == expected);
    for (const char* host : {"localhost", "kubernetes.default.svc.cluster.local"}) {
      CAPTURE(host);
      CHECK(X509_check_host(serving.get(), host, 0, 0, nullptr) == 1);
    }
    for (const char* ip : {"127.0.0.1", "::1", "10.96.0.1"}) {
      CAPTURE(ip);
      CHECK(X509_check_ip_asc(serving.get(), ip, 0) == 1);
    }
    CHECK(X509_check_host(serving.get(), "example.com", 0, 0, nullptr) == 0);
  }

  SECTION("the admin certificate verifies for clientAuth and yields its CN and O") {
    CHECK(verifies(admin.get(), ca.get(), X509_PURPOSE_SSL_CLIENT));
    CHECK(X509_get_extended_key_usage(admin.get()) == XKU_SSL_CLIENT);
    auto id = pki::verify_client_certificate(p.admin_cert_pem, p.ca_cert_pem);
    REQUIRE(id);
    CHECK(id->common_name == "kube-sandbox-admin");
    CHECK(id->organizations == std::vector<std::string>{"system:masters"});
  }

  SECTION("the token is 32 random bytes in hex") {
    CHECK(p.admin_token.size() == 64);
    CHECK(p.admin_token.find_first_not_of("0123456789abcdef") == std::string::npos);
    TempDir other("ks-pki-test");
    CHECK(ensure(other.path()).admin_token != p.admin_token);
  }

  SECTION("each key is the private key of its certificate") {
    CHECK(pki::check_key_pair(p.ca_cert_pem, p.ca_key_pem) == std::nullopt);
    CHECK(pki::check_key_pair(p.serving_cert_pem, p.serving_key_pem) == std::nullopt);
    CHECK(pki::check_key_pair(p.admin_cert_pem, p.admin_key_pem) == std::nullopt);
    CHECK(pki::check_key_pair(p.admin_cert_pem, p.ca_key_pem) ==
          "the private key does not match the certificate");
  }
}

TEST_CASE("a second ensure_pki reuses every file byte for byte", "[pki]") {
  TempDir tmp("ks-pki-test");
  pki::Pki first = ensure(tmp.path());
  auto before = snapshot(tmp.path());

  pki::Pki second = ensure(tmp.path());
  CHECK(second.written.empty());
  CHECK(snapshot(tmp.path()) == before);
  CHECK(second.ca_cert_pem == first.ca_cert_pem);
  CHECK(second.serving_key_pem == first.serving_key_pem);
  CHECK(second.admin_cert_pem == first.admin_cert_pem);
  CHECK(second.admin_token == first.admin_token);
}

TEST_CASE("a different SAN set regenerates only the serving certificate", "[pki]") {
  TempDir tmp("ks-pki-test");
  ensure(tmp.path());
  auto before = snapshot(tmp.path());

  pki::Pki p = ensure(tmp.path(), {"Example.TEST", "192.0.2.7", "IP:fd00:0:0::1"});
  CHECK(p.written == std::vector<std::string>{"serving.key", "serving.crt"});
  auto after = snapshot(tmp.path());
  for (const std::string& name : kFiles) {
    CAPTURE(name);
    CHECK((after[name] == before[name]) == (name.rfind("serving.", 0) != 0));
  }
  Cert serving = parse_cert(p.serving_cert_pem);
  std::set<std::string> sans = sans_of(serving.get());
  CHECK(sans.count("DNS:example.test") == 1);
  CHECK(sans.count("IP:192.0.2.7") == 1);
  CHECK(sans.count("IP:fd00::1") == 1);
  CHECK(sans.count("DNS:kubernetes.default.svc") == 1);
  CHECK(verifies(serving.get(), parse_cert(p.ca_cert_pem).get(), X509_PURPOSE_SSL_SERVER));

  // The same set spelled differently is the same set.
  CHECK(ensure(tmp.path(), {"DNS:example.test", "fd00::1", "IP:192.0.2.7", "localhost"})
            .written.empty());
  // Dropping the extras regenerates again.
  CHECK(ensure(tmp.path()).written == std::vector<std::string>{"serving.key", "serving.crt"});
}

TEST_CASE("ensure_pki regenerates what is missing and only that", "[pki]") {
  TempDir tmp("ks-pki-test");
  ensure(tmp.path());
  auto before = snapshot(tmp.path());

  SECTION("the token") {
    fs::remove(tmp.path() / "admin.token");
    pki::Pki p = ensure(tmp.path());
    CHECK(p.written == std::vector<std::string>{"admin.token"});
    CHECK(p.admin_token != before["admin.token"].substr(0, 64));
    CHECK(mode_of(tmp.path() / "admin.token") == 0600);
  }
  SECTION("the admin key") {
    fs::remove(tmp.path() / "admin.key");
    pki::Pki p = ensure(tmp.path());
    CHECK(p.written == std::vector<std::string>{"admin.key", "admin.crt"});
    CHECK(p.serving_cert_pem == before["serving.crt"]);
    CHECK(p.ca_cert_pem == before["ca.crt"]);
    CHECK(pki::verify_client_certificate(p.admin_cert_pem, p.ca_cert_pem));
  }
  SECTION("the CA key: the CA and every certificate it signed, but not the token") {
    fs::remove(tmp.path() / "ca.key");
    pki::Pki p = ensure(tmp.path());
    CHECK(p.written == std::vector<std::string>{"ca.key", "ca.crt", "serving.key", "serving.crt",
                                                "admin.key", "admin.crt"});
    CHECK(p.ca_cert_pem != before["ca.crt"]);
    CHECK(p.admin_token + "\n" == before["admin.token"]);
    Cert ca = parse_cert(p.ca_cert_pem);
    CHECK(verifies(parse_cert(p.serving_cert_pem).get(), ca.get(), X509_PURPOSE_SSL_SERVER));
    CHECK(verifies(parse_cert(p.admin_cert_pem).get(), ca.get(), X509_PURPOSE_SSL_CLIENT));
  }
  SECTION("a leaf certificate signed by another CA") {
    TempDir other("ks-pki-test");
    pki::Pki foreign = ensure(other.path());
    overwrite_file(tmp.path() / "admin.crt", foreign.admin_cert_pem);
    overwrite_file(tmp.path() / "admin.key", foreign.admin_key_pem);
    pki::Pki p = ensure(tmp.path());
    CHECK(p.written == std::vector<std::string>{"admin.key", "admin.crt"});
    CHECK(pki::verify_client_certificate(p.admin_cert_pem, p.ca_cert_pem));
  }
}

TEST_CASE("ensure_pki never overwrites a file it cannot read", "[pki]") {
  TempDir tmp("ks-pki-test");
  ensure(tmp.path());

  SECTION("a certificate that is not PEM") {
    overwrite_file(tmp.path() / "serving.crt", "garbage\n");
    CHECK(error_of(pki::ensure_pki(tmp.path(), {})) ==
          (tmp.path() / "serving.crt").string() + ": no certificate found");
    CHECK(read_file(tmp.path() / "serving.crt") == "garbage\n");
  }
  SECTION("a CA key that is not the CA's") {
    overwrite_file(tmp.path() / "ca.key", read_file(tmp.path() / "admin.key"));
    CHECK(error_of(pki::ensure_pki(tmp.path(), {})) == (tmp.path() / "ca.key").string() +
                                                           ": the private key does not match " +
                                                           (tmp.path() / "ca.crt").string());
  }
  SECTION("an empty token file") {
    overwrite_file(tmp.path() / "admin.token", "\n");
    CHECK(error_of(pki::ensure_pki(tmp.path(), {})) ==
          (tmp.path() / "admin.token").string() + ": expected one token on one line");
  }
  SECTION("a web console token of two words") {
    overwrite_file(tmp.path() / "web-console.token", "one two\n");
    CHECK(error_of(pki::ensure_pki(tmp.path(), {})) ==
          (tmp.path() / "web-console.token").string() + ": expected one token on one line");
  }
}

TEST_CASE("ensure_pki rejects an invalid extra SAN before writing anything", "[pki]") {
  auto [san, message] = GENERATE(table<std::string, std::string>({
      {"bad name!", "invalid DNS name in subject alternative name \"bad name!\""},
      {"IP:300.1.1.1", "invalid IP address in subject alternative name \"IP:300.1.1.1\""},
      {"", "invalid DNS name in subject alternative name \"\""},
      {"DNS:a..b", "invalid DNS name in subject alternative name \"DNS:a..b\""},
  }));
  CAPTURE(san);
  TempDir tmp("ks-pki-test");
  CHECK(error_of(pki::ensure_pki(tmp.path() / "pki", {san})) == message);
  CHECK_FALSE(fs::exists(tmp.path() / "pki"));
}

TEST_CASE("verify_client_certificate rejects what kube-apiserver would", "[pki]") {
  TempDir tmp("ks-pki-test");
  TempDir other("ks-pki-test");
  pki::Pki p = ensure(tmp.path());
  pki::Pki foreign = ensure(other.path());

  auto [name, chain, ca, message] =
      GENERATE_COPY(table<const char*, std::string, std::string, std::string>({
          {"a serving certificate", p.serving_cert_pem, p.ca_cert_pem,
           "client certificate: unsuitable certificate purpose"},
          {"another CA's client", foreign.admin_cert_pem, p.ca_cert_pem,
           "client certificate: unable to get local issuer certificate"},
          {"not PEM", "hello", p.ca_cert_pem, "client certificate: no certificate found"},
          {"no CA", p.admin_cert_pem, "", "client CA: no certificate found"},
      }));
  CAPTURE(name);
  CHECK(error_of(pki::verify_client_certificate(chain, ca)) == message);
}

TEST_CASE("load_key_pair reads PEM files and explains what is wrong", "[pki]") {
  TempDir tmp("ks-pki-test");
  pki::Pki p = ensure(tmp.path());

  SECTION("a matching pair") {
    auto pair = pki::load_key_pair(p.serving_cert_file, p.serving_key_file);
    REQUIRE(pair);
    CHECK(pair->cert_pem == p.serving_cert_pem);
    CHECK(pair->key_pem == p.serving_key_pem);
  }
  SECTION("a chain file, leaf first") {
    overwrite_file(tmp.path() / "chain.crt", p.serving_cert_pem + p.ca_cert_pem);
    CHECK(pki::load_key_pair(tmp.path() / "chain.crt", p.serving_key_file));
  }
  SECTION("a key that belongs to another certificate") {
    CHECK(error_of(pki::load_key_pair(p.serving_cert_file, p.admin_key_file)) ==
          p.admin_key_file.string() + ": the private key does not match " +
              p.serving_cert_file.string());
  }
  SECTION("a missing file") {
    CHECK(error_of(pki::load_key_pair(tmp.path() / "nope.crt", p.serving_key_file)) ==
          (tmp.path() / "nope.crt").string() + ": No such file or directory");
  }
  SECTION("the files swapped") {
    CHECK(error_of(pki::load_key_pair(p.serving_key_file, p.serving_cert_file)) ==
          p.serving_key_file.string() + ": no certificate found");
  }
  SECTION("an encrypted key") {
    overwrite_file(
        tmp.path() / "enc.key",
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n");
    CHECK(error_of(pki::load_key_pair(p.serving_cert_file, tmp.path() / "enc.key")) ==
          (tmp.path() / "enc.key").string() + ": encrypted private keys are not supported");
  }
}

TEST_CASE("default_serving_sans lists the in-cluster names and this host", "[pki]") {
  std::vector<std::string> sans = pki::default_serving_sans();
  CHECK(sans.front() == "DNS:localhost");
  CHECK(std::count(sans.begin(), sans.end(), "DNS:" + host_name()) == 1);
  CHECK(std::vector<std::string>(sans.end() - 3, sans.end()) ==
        std::vector<std::string>{"IP:127.0.0.1", "IP:::1", "IP:10.96.0.1"});
}

TEST_CASE("concurrent ensure_pki calls agree on one PKI", "[pki]") {
  TempDir tmp("ks-pki-test");
  fs::path dir = tmp.path() / "pki";
  std::vector<std::optional<pki::Pki>> results(4);
  std::vector<std::string> errors(results.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] {
      auto result = pki::ensure_pki(dir, {});
      if (result) {
        results[i] = std::move(*result);
      } else {
        errors[i] = result.error();
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  size_t writers = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    CAPTURE(i, errors[i]);
    REQUIRE(results[i]);
    CHECK(results[i]->ca_cert_pem == read_file(dir / "ca.crt"));
    CHECK(results[i]->admin_cert_pem == read_file(dir / "admin.crt"));
    writers += results[i]->written.empty() ? 0 : 1;
  }
  CHECK(writers == 1);
}
