#include "apiserver/pki.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>
#include <set>

#include "common/durable_file.h"
#include "common/hex.h"
#include "common/read_file.h"
#include "server/x509_util.h"

namespace apiserver::pki {
namespace {

namespace fs = std::filesystem;

constexpr int kCaDays = 3650;
constexpr int kLeafDays = 365;
// A certificate this close to its end is renewed rather than reused.
constexpr long kRenewBeforeSeconds = 30L * 24 * 3600;
// Certificates start an hour in the past so that a peer whose clock is a little behind accepts
// them at once.
constexpr long kBackdateSeconds = 3600;

using x509_util::add_extension;
using x509_util::cert_to_pem;
using x509_util::Deleter;
using x509_util::generate_key;
using x509_util::key_to_pem;
using x509_util::openssl_error;
using x509_util::parse_certs;
using x509_util::parse_key;
using x509_util::PkeyPtr;
using x509_util::X509Ptr;
using StorePtr = std::unique_ptr<X509_STORE, Deleter<X509_STORE_free>>;
using StoreCtxPtr = std::unique_ptr<X509_STORE_CTX, Deleter<X509_STORE_CTX_free>>;
using NamesPtr = std::unique_ptr<GENERAL_NAMES, Deleter<GENERAL_NAMES_free>>;

struct CertStackFree {
  void operator()(STACK_OF(X509) * s) const { sk_X509_pop_free(s, X509_free); }
};
using CertStackPtr = std::unique_ptr<STACK_OF(X509), CertStackFree>;

// --- files -----------------------------------------------------------------------------------

std::string errno_text(int err) {
  return std::strerror(err);
}

// Writes `content` to `path` with `mode`: a temporary file in the same directory, fsync, rename,
// then fsync of the directory, so a reader sees either the old file or the whole new one. The
// error when it cannot.
std::optional<std::string> write_file_atomically(const fs::path& path, std::string_view content,
                                                 mode_t mode) {
  // A directory that cannot be fsynced is no failure: the new file is whole either way.
  auto written = common::write_file_durably(path, content, mode);
  if (!written.error.empty()) {
    return std::move(written.error);
  }
  return std::nullopt;
}

// Creates `dir` with mode 0700 (and any missing parents with the default mode); the error when
// it cannot.
std::optional<std::string> make_private_dir(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    return std::nullopt;
  }
  if (dir.has_parent_path()) {
    fs::create_directories(dir.parent_path(), ec);
    if (ec) {
      return dir.parent_path().string() + ": " + ec.message();
    }
  }
  if (::mkdir(dir.c_str(), 0700) != 0) {
    if (errno == EEXIST && fs::is_directory(dir, ec)) {
      return std::nullopt;
    }
    return dir.string() + ": " + errno_text(errno);
  }
  ::chmod(dir.c_str(), 0700);
  return std::nullopt;
}

// An exclusive flock held for the lifetime of the object.
class DirLock {
 public:
  // Opens (creating) `file` and waits for the lock; the error when it cannot.
  std::optional<std::string> acquire(const fs::path& file) {
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) {
      return file.string() + ": " + errno_text(errno);
    }
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        return file.string() + ": flock: " + errno_text(errno);
      }
    }
    return std::nullopt;
  }
  ~DirLock() {
    if (fd_ >= 0) {
      ::close(fd_);  // releases the lock
    }
  }

 private:
  int fd_ = -1;
};

// --- subject alternative names ---------------------------------------------------------------

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool valid_dns_name(std::string_view name) {
  if (name.rfind("*.", 0) == 0) {
    name.remove_prefix(2);
  }
  if (name.empty() || name.size() > 253 || name.front() == '.' || name.back() == '.' ||
      name.find("..") != std::string_view::npos) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '.' || c == '_';
  });
}

// "IP:<canonical address>" from 4 or 16 raw bytes.
std::string ip_san(const unsigned char* bytes, size_t size) {
  char text[INET6_ADDRSTRLEN] = {};
  int family = size == 4 ? AF_INET : AF_INET6;
  if ((size != 4 && size != 16) || ::inet_ntop(family, bytes, text, sizeof text) == nullptr) {
    return "IP:?";
  }
  return std::string("IP:") + text;
}

// Turns a user's SAN ("name", "1.2.3.4", "DNS:name", "IP:::1") into its canonical form.
common::Result<std::string> normalise_san(std::string_view san) {
  std::string_view value = san;
  bool want_ip = false;
  bool want_dns = false;
  if (lower(std::string(san.substr(0, 3))) == "ip:") {
    want_ip = true;
    value.remove_prefix(3);
  } else if (lower(std::string(san.substr(0, 4))) == "dns:") {
    want_dns = true;
    value.remove_prefix(4);
  }
  std::string text(value);
  unsigned char bytes[16];
  if (!want_dns) {
    if (::inet_pton(AF_INET, text.c_str(), bytes) == 1) {
      return ip_san(bytes, 4);
    }
    if (::inet_pton(AF_INET6, text.c_str(), bytes) == 1) {
      return ip_san(bytes, 16);
    }
    if (want_ip) {
      return common::Result<std::string>::failure(
          "invalid IP address in subject alternative name \"" + std::string(san) + "\"");
    }
  }
  if (!valid_dns_name(text)) {
    return common::Result<std::string>::failure("invalid DNS name in subject alternative name \"" +
                                                std::string(san) + "\"");
  }
  return "DNS:" + lower(text);
}

// The SANs asked for: the defaults, then the extras, without duplicates, in that order.
common::Result<std::vector<std::string>> wanted_sans(const std::vector<std::string>& extra) {
  std::vector<std::string> sans = default_serving_sans();
  std::set<std::string> seen(sans.begin(), sans.end());
  for (const std::string& san : extra) {
    auto canonical = normalise_san(san);
    if (!canonical) {
      return canonical.error();
    }
    if (seen.insert(*canonical).second) {
      sans.push_back(*canonical);
    }
  }
  return sans;
}

std::set<std::string> cert_sans(X509* cert) {
  std::set<std::string> sans;
  NamesPtr names(
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr)));
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names.get(), i);
    int type = 0;
    auto* value = static_cast<ASN1_STRING*>(GENERAL_NAME_get0_value(name, &type));
    const unsigned char* data = ASN1_STRING_get0_data(value);
    auto size = static_cast<size_t>(ASN1_STRING_length(value));
    if (type == GEN_DNS) {
      sans.insert("DNS:" + lower(std::string(reinterpret_cast<const char*>(data), size)));
    } else if (type == GEN_IPADD) {
      sans.insert(ip_san(data, size));
    }
  }
  return sans;
}

bool add_san_extension(X509* cert, const std::vector<std::string>& sans) {
  NamesPtr names(sk_GENERAL_NAME_new_null());
  for (const std::string& san : sans) {
    GENERAL_NAME* name = GENERAL_NAME_new();
    if (san.rfind("IP:", 0) == 0) {
      unsigned char bytes[16];
      std::string text = san.substr(3);
      bool v4 = ::inet_pton(AF_INET, text.c_str(), bytes) == 1;
      if (!v4 && ::inet_pton(AF_INET6, text.c_str(), bytes) != 1) {
        GENERAL_NAME_free(name);
        return false;
      }
      ASN1_OCTET_STRING* address = ASN1_OCTET_STRING_new();
      ASN1_OCTET_STRING_set(address, bytes, v4 ? 4 : 16);
      GENERAL_NAME_set0_value(name, GEN_IPADD, address);
    } else {
      std::string dns = san.substr(4);
      ASN1_IA5STRING* text = ASN1_IA5STRING_new();
      ASN1_STRING_set(text, dns.data(), static_cast<int>(dns.size()));
      GENERAL_NAME_set0_value(name, GEN_DNS, text);
    }
    sk_GENERAL_NAME_push(names.get(), name);
  }
  return X509_add1_ext_i2d(cert, NID_subject_alt_name, names.get(), 0, X509V3_ADD_DEFAULT) == 1;
}

// --- certificates ----------------------------------------------------------------------------

struct CertSpec {
  std::string common_name;
  std::vector<std::string> organizations = {};
  int days = kLeafDays;
  bool is_ca = false;
  const char* ext_key_usage = nullptr;  // "serverAuth" or "clientAuth"
  std::vector<std::string> sans = {};
};

// Builds and signs a certificate for `key`. With no issuer, it is self-signed.
common::Result<X509Ptr> make_cert(const CertSpec& spec, EVP_PKEY* key, X509* issuer,
                                  EVP_PKEY* issuer_key) {
  ERR_clear_error();
  X509Ptr cert(X509_new());
  bool ok = cert && x509_util::set_random_serial(cert.get());
  ok = ok && X509_set_version(cert.get(), X509_VERSION_3) == 1;
  ok = ok && X509_gmtime_adj(X509_getm_notBefore(cert.get()), -kBackdateSeconds) != nullptr;
  ok = ok && X509_time_adj_ex(X509_getm_notAfter(cert.get()), spec.days, 0, nullptr) != nullptr;
  ok = ok && X509_set_pubkey(cert.get(), key) == 1;

  X509_NAME* subject = X509_get_subject_name(cert.get());
  for (const std::string& org : spec.organizations) {
    ok = ok && X509_NAME_add_entry_by_txt(subject, "O", MBSTRING_UTF8,
                                          reinterpret_cast<const unsigned char*>(org.c_str()), -1,
                                          -1, 0) == 1;
  }
  ok = ok && X509_NAME_add_entry_by_txt(
                 subject, "CN", MBSTRING_UTF8,
                 reinterpret_cast<const unsigned char*>(spec.common_name.c_str()), -1, -1, 0) == 1;
  X509* signer = issuer != nullptr ? issuer : cert.get();
  ok = ok && X509_set_issuer_name(cert.get(), X509_get_subject_name(signer)) == 1;

  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, signer, cert.get(), nullptr, nullptr, 0);
  if (spec.is_ca) {
    ok = ok && add_extension(cert.get(), &ctx, NID_basic_constraints, "critical,CA:TRUE");
    ok = ok && add_extension(cert.get(), &ctx, NID_key_usage,
                             "critical,digitalSignature,keyCertSign,cRLSign");
  } else {
    ok = ok && add_extension(cert.get(), &ctx, NID_basic_constraints, "critical,CA:FALSE");
    ok = ok && add_extension(cert.get(), &ctx, NID_key_usage, "critical,digitalSignature");
    ok = ok && add_extension(cert.get(), &ctx, NID_ext_key_usage, spec.ext_key_usage);
  }
  // The subject key id goes first: for a self-signed CA the authority key id copies it.
  ok = ok && add_extension(cert.get(), &ctx, NID_subject_key_identifier, "hash");
  ok = ok && add_extension(cert.get(), &ctx, NID_authority_key_identifier, "keyid:always");
  if (!spec.sans.empty()) {
    ok = ok && add_san_extension(cert.get(), spec.sans);
  }
  ok = ok && X509_sign(cert.get(), issuer_key != nullptr ? issuer_key : key, EVP_sha256()) > 0;
  if (!ok) {
    return "creating the certificate for \"" + spec.common_name + "\": " + openssl_error();
  }
  return cert;
}

// Verifies `leaf` (with `untrusted` intermediates, may be null) against `cas` for `purpose`;
// why it does not verify, or nullopt.
std::optional<std::string> verify_cert(X509* leaf, STACK_OF(X509) * untrusted,
                                       const std::vector<X509Ptr>& cas, int purpose) {
  ERR_clear_error();
  StorePtr store(X509_STORE_new());
  StoreCtxPtr ctx(X509_STORE_CTX_new());
  if (!store || !ctx) {
    return openssl_error();
  }
  for (const X509Ptr& ca : cas) {
    X509_STORE_add_cert(store.get(), ca.get());
  }
  if (X509_STORE_CTX_init(ctx.get(), store.get(), leaf, untrusted) != 1 ||
      X509_STORE_CTX_set_purpose(ctx.get(), purpose) != 1) {
    return openssl_error();
  }
  if (X509_verify_cert(ctx.get()) != 1) {
    std::string why = X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get()));
    ERR_clear_error();
    return why;
  }
  return std::nullopt;
}

bool expires_soon(X509* cert) {
  time_t horizon = std::time(nullptr) + kRenewBeforeSeconds;
  return X509_cmp_time(X509_get0_notAfter(cert), &horizon) <= 0;
}

ClientIdentity subject_identity(X509* cert) {
  ClientIdentity identity;
  X509_NAME* subject = X509_get_subject_name(cert);
  for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
    X509_NAME_ENTRY* entry = X509_NAME_get_entry(subject, i);
    int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry));
    if (nid != NID_commonName && nid != NID_organizationName) {
      continue;
    }
    unsigned char* utf8 = nullptr;
    int size = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
    if (size < 0) {
      continue;
    }
    std::string value(reinterpret_cast<char*>(utf8), static_cast<size_t>(size));
    OPENSSL_free(utf8);
    if (nid == NID_commonName) {
      identity.common_name = value;  // the last CN wins, as in Go's pkix.Name
    } else {
      identity.organizations.push_back(value);
    }
  }
  return identity;
}

// --- ensure_pki ------------------------------------------------------------------------------

// A certificate and key as loaded from, or about to be written to, their files.
struct Pair {
  X509Ptr cert;
  PkeyPtr key;
  std::string cert_pem;
  std::string key_pem;
};

// Loads a cert/key pair: nullopt when either file is absent; fails when a file cannot be read or
// parsed or the key is not the certificate's.
common::Result<std::optional<Pair>> load_pair(const fs::path& cert_file, const fs::path& key_file) {
  auto cert_pem = common::read_file(cert_file);
  auto key_pem = common::read_file(key_file);
  if (!cert_pem && !cert_pem.error().missing()) {
    return cert_pem.error().message;
  }
  if (!key_pem && !key_pem.error().missing()) {
    return key_pem.error().message;
  }
  if (!cert_pem || !key_pem) {
    return std::optional<Pair>();
  }
  Pair pair;
  pair.cert_pem = std::move(*cert_pem);
  pair.key_pem = std::move(*key_pem);
  std::vector<X509Ptr> certs = parse_certs(pair.cert_pem);
  if (certs.empty()) {
    return cert_file.string() + ": no certificate found";
  }
  pair.cert = std::move(certs.front());
  auto key = parse_key(pair.key_pem);
  if (!key) {
    return key_file.string() + ": " + key.error();
  }
  pair.key = std::move(*key);
  if (X509_check_private_key(pair.cert.get(), pair.key.get()) != 1) {
    ERR_clear_error();
    return key_file.string() + ": the private key does not match " + cert_file.string();
  }
  return std::optional<Pair>(std::move(pair));
}

// A new key and a certificate for it, signed by `issuer` (self-signed without one).
common::Result<Pair> generate_pair(const CertSpec& spec, const Pair* issuer) {
  auto key = generate_key();
  if (!key) {
    return key.error();
  }
  auto cert = make_cert(spec, key->get(), issuer ? issuer->cert.get() : nullptr,
                        issuer ? issuer->key.get() : nullptr);
  if (!cert) {
    return cert.error();
  }
  Pair out;
  out.key = std::move(*key);
  out.cert = std::move(*cert);
  out.cert_pem = cert_to_pem(out.cert.get());
  out.key_pem = key_to_pem(out.key.get());
  if (out.cert_pem.empty() || out.key_pem.empty()) {
    return "encoding the certificate for \"" + spec.common_name + "\" as PEM: " + openssl_error();
  }
  return out;
}

// Writes both files (the key first) and adds their names to `written`; the error when it cannot.
std::optional<std::string> write_pair(const Pair& pair, const fs::path& cert_file,
                                      const fs::path& key_file, std::vector<std::string>& written) {
  if (auto error = write_file_atomically(key_file, pair.key_pem, 0600)) {
    return error;
  }
  if (auto error = write_file_atomically(cert_file, pair.cert_pem, 0644)) {
    return error;
  }
  written.push_back(key_file.filename().string());
  written.push_back(cert_file.filename().string());
  return std::nullopt;
}

// A leaf pair that exists, is signed by `ca` and passes `still_good`; regenerated (and written)
// otherwise, and always when `ca_changed`.
template <class StillGood>
common::Result<Pair> ensure_leaf(const CertSpec& spec, const Pair& ca, bool ca_changed, int purpose,
                                 const fs::path& cert_file, const fs::path& key_file,
                                 StillGood still_good, std::vector<std::string>& written) {
  if (!ca_changed) {
    auto loaded = load_pair(cert_file, key_file);
    if (!loaded) {
      return loaded.error();
    }
    if (*loaded) {
      Pair& pair = **loaded;
      std::vector<X509Ptr> cas;
      cas.emplace_back(X509_dup(ca.cert.get()));
      if (verify_cert(pair.cert.get(), nullptr, cas, purpose) == std::nullopt &&
          !expires_soon(pair.cert.get()) && still_good(pair.cert.get())) {
        return std::move(pair);
      }
    }
  }
  auto fresh = generate_pair(spec, &ca);
  if (!fresh) {
    return fresh;
  }
  if (auto error = write_pair(*fresh, cert_file, key_file, written)) {
    return std::move(*error);
  }
  return fresh;
}

// A CA pair named `common_name`: the files' unless missing or about to expire, else a new one
// (written, with `changed` set).
common::Result<Pair> ensure_ca(const char* common_name, const fs::path& cert_file,
                               const fs::path& key_file, bool& changed,
                               std::vector<std::string>& written) {
  auto loaded = load_pair(cert_file, key_file);
  if (!loaded) {
    return loaded.error();
  }
  if (*loaded && X509_check_ca((*loaded)->cert.get()) == 0) {
    return cert_file.string() + ": not a CA certificate";
  }
  changed = !*loaded || expires_soon((*loaded)->cert.get());
  if (!changed) {
    return std::move(**loaded);
  }
  CertSpec spec{.common_name = common_name, .days = kCaDays, .is_ca = true};
  auto fresh = generate_pair(spec, nullptr);
  if (!fresh) {
    return fresh.error();
  }
  if (auto error = write_pair(*fresh, cert_file, key_file, written)) {
    return std::move(*error);
  }
  return fresh;
}

// A secret token kept in `file` (one line, mode 0600): read when there, else made from 32 random
// bytes as hex and written. `what` names it in errors.
common::Result<std::string> ensure_token(const fs::path& file, const char* what,
                                         std::vector<std::string>& written) {
  std::string token;
  if (auto read = common::read_file(file)) {
    token = std::move(*read);
    token.erase(token.find_last_not_of(" \t\r\n") + 1);
    if (token.empty() || token.find_first_of(" \t\r\n") != std::string::npos) {
      return common::Result<std::string>::failure(file.string() +
                                                  ": expected one token on one line");
    }
    return token;
  } else if (!read.error().missing()) {
    return common::Result<std::string>::failure(read.error().message);
  }
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    return common::Result<std::string>::failure(std::string("generating ") + what + ": " +
                                                openssl_error());
  }
  token = common::lower_hex(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
  if (auto error = write_file_atomically(file, token + "\n", 0600)) {
    return common::Result<std::string>::failure(std::move(*error));
  }
  written.push_back(file.filename().string());
  return token;
}

}  // namespace

std::vector<std::string> default_serving_sans() {
  std::vector<std::string> sans = {
      "DNS:localhost",
      "DNS:kubernetes",
      "DNS:kubernetes.default",
      "DNS:kubernetes.default.svc",
      "DNS:kubernetes.default.svc.cluster.local",
  };
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0 && valid_dns_name(host)) {
    std::string name = "DNS:" + lower(host);
    if (std::find(sans.begin(), sans.end(), name) == sans.end()) {
      sans.push_back(name);
    }
  }
  for (const char* ip : {"IP:127.0.0.1", "IP:::1", "IP:10.96.0.1"}) {
    sans.emplace_back(ip);
  }
  return sans;
}

common::Result<Pki> ensure_pki(const fs::path& dir, const std::vector<std::string>& extra_sans) {
  auto sans = wanted_sans(extra_sans);
  if (!sans) {
    return sans.error();
  }
  if (auto error = make_private_dir(dir)) {
    return std::move(*error);
  }
  DirLock lock;
  if (auto error = lock.acquire(dir / ".lock")) {
    return std::move(*error);
  }

  Pki pki;
  pki.dir = dir;
  pki.ca_cert_file = dir / "ca.crt";
  pki.ca_key_file = dir / "ca.key";
  pki.serving_cert_file = dir / "serving.crt";
  pki.serving_key_file = dir / "serving.key";
  pki.admin_cert_file = dir / "admin.crt";
  pki.admin_key_file = dir / "admin.key";
  pki.admin_token_file = dir / "admin.token";
  pki.web_console_token_file = dir / kWebConsoleTokenFile;

  // The CA: reused unless missing or about to expire.
  bool ca_changed = false;
  auto loaded_ca =
      ensure_ca(kCaCommonName, pki.ca_cert_file, pki.ca_key_file, ca_changed, pki.written);
  if (!loaded_ca) {
    return loaded_ca.error();
  }
  Pair ca = std::move(*loaded_ca);

  CertSpec serving_spec{
      .common_name = kServingCommonName, .ext_key_usage = "serverAuth", .sans = *sans};
  std::set<std::string> wanted(sans->begin(), sans->end());
  auto serving = ensure_leaf(
      serving_spec, ca, ca_changed, X509_PURPOSE_SSL_SERVER, pki.serving_cert_file,
      pki.serving_key_file, [&](X509* cert) { return cert_sans(cert) == wanted; }, pki.written);
  if (!serving) {
    return serving.error();
  }

  CertSpec admin_spec{.common_name = kAdminCommonName,
                      .organizations = {kAdminOrganization},
                      .ext_key_usage = "clientAuth"};
  auto admin = ensure_leaf(
      admin_spec, ca, ca_changed, X509_PURPOSE_SSL_CLIENT, pki.admin_cert_file, pki.admin_key_file,
      [](X509* cert) {
        ClientIdentity id = subject_identity(cert);
        return id.common_name == kAdminCommonName &&
               id.organizations == std::vector<std::string>{kAdminOrganization};
      },
      pki.written);
  if (!admin) {
    return admin.error();
  }

  // The front-proxy CA and its client, apart from the main CA as kubeadm keeps them.
  pki.front_proxy_ca_cert_file = dir / "front-proxy-ca.crt";
  pki.front_proxy_ca_key_file = dir / "front-proxy-ca.key";
  pki.front_proxy_client_cert_file = dir / "front-proxy-client.crt";
  pki.front_proxy_client_key_file = dir / "front-proxy-client.key";
  bool proxy_ca_changed = false;
  auto loaded_proxy_ca = ensure_ca(kFrontProxyCaCommonName, pki.front_proxy_ca_cert_file,
                                   pki.front_proxy_ca_key_file, proxy_ca_changed, pki.written);
  if (!loaded_proxy_ca) {
    return loaded_proxy_ca.error();
  }
  Pair proxy_ca = std::move(*loaded_proxy_ca);
  CertSpec proxy_client_spec{.common_name = kFrontProxyClientCommonName,
                             .ext_key_usage = "clientAuth"};
  auto proxy_client = ensure_leaf(
      proxy_client_spec, proxy_ca, proxy_ca_changed, X509_PURPOSE_SSL_CLIENT,
      pki.front_proxy_client_cert_file, pki.front_proxy_client_key_file,
      [](X509* cert) { return subject_identity(cert).common_name == kFrontProxyClientCommonName; },
      pki.written);
  if (!proxy_client) {
    return proxy_client.error();
  }

  auto token = ensure_token(pki.admin_token_file, "the admin token", pki.written);
  if (!token) {
    return token.error();
  }
  auto web_token = ensure_token(pki.web_console_token_file, "the web console token", pki.written);
  if (!web_token) {
    return web_token.error();
  }

  pki.ca_cert_pem = std::move(ca.cert_pem);
  pki.ca_key_pem = std::move(ca.key_pem);
  pki.serving_cert_pem = std::move(serving->cert_pem);
  pki.serving_key_pem = std::move(serving->key_pem);
  pki.admin_cert_pem = std::move(admin->cert_pem);
  pki.admin_key_pem = std::move(admin->key_pem);
  pki.admin_token = std::move(*token);
  pki.web_console_token = std::move(*web_token);
  pki.front_proxy_ca_cert_pem = std::move(proxy_ca.cert_pem);
  pki.front_proxy_client_cert_pem = std::move(proxy_client->cert_pem);
  pki.front_proxy_client_key_pem = std::move(proxy_client->key_pem);
  return pki;
}

std::optional<std::string> check_key_pair(std::string_view cert_pem, std::string_view key_pem) {
  std::vector<X509Ptr> certs = parse_certs(cert_pem);
  if (certs.empty()) {
    return "no certificate found";
  }
  auto key = parse_key(key_pem);
  if (!key) {
    return key.error();
  }
  if (X509_check_private_key(certs.front().get(), key->get()) != 1) {
    ERR_clear_error();
    return "the private key does not match the certificate";
  }
  return std::nullopt;
}

common::Result<KeyPair> load_key_pair(const fs::path& cert_file, const fs::path& key_file) {
  auto cert_pem = common::read_file(cert_file);
  if (!cert_pem) {
    return cert_pem.error().message;
  }
  auto key_pem = common::read_file(key_file);
  if (!key_pem) {
    return key_pem.error().message;
  }
  KeyPair pair{std::move(*cert_pem), std::move(*key_pem)};
  if (parse_certs(pair.cert_pem).empty()) {
    return cert_file.string() + ": no certificate found";
  }
  if (auto key = parse_key(pair.key_pem); !key) {
    return key_file.string() + ": " + key.error();
  }
  if (check_key_pair(pair.cert_pem, pair.key_pem)) {
    return key_file.string() + ": the private key does not match " + cert_file.string();
  }
  return pair;
}

common::Result<ClientIdentity> verify_client_certificate(std::string_view chain_pem,
                                                         std::string_view ca_pem) {
  std::vector<X509Ptr> chain = parse_certs(chain_pem);
  if (chain.empty()) {
    return std::string("client certificate: no certificate found");
  }
  std::vector<X509Ptr> cas = parse_certs(ca_pem);
  if (cas.empty()) {
    return std::string("client CA: no certificate found");
  }
  CertStackPtr untrusted(sk_X509_new_null());
  for (size_t i = 1; i < chain.size(); ++i) {
    sk_X509_push(untrusted.get(), chain[i].release());
  }
  if (auto why = verify_cert(chain.front().get(), untrusted.get(), cas, X509_PURPOSE_SSL_CLIENT)) {
    return "client certificate: " + *why;
  }
  ClientIdentity identity = subject_identity(chain.front().get());
  if (identity.common_name.empty()) {
    return std::string("client certificate: the subject has no common name");
  }
  return identity;
}

}  // namespace apiserver::pki
