// The public half of the service-account configuration (apiserver/service_accounts.h): the
// checks kube-apiserver runs on its flags, and the data directory's key pair.
#include <set>

#include "apiserver/service_accounts.h"
#include "common/durable_file.h"
#include "common/go_quote.h"
#include "common/read_file.h"
#include "serviceaccount/keys.h"

namespace apiserver {
namespace {

// The two refusals of Go's url.Parse an issuer can meet: a control character anywhere, a space in
// the host.
std::optional<std::string> url_parse_error(const std::string& url) {
  for (unsigned char c : url) {
    if (c < 0x20 || c == 0x7f) {
      return "net/url: invalid control character in URL";
    }
  }
  const size_t authority = url.find("://");
  if (authority != std::string::npos) {
    const size_t start = authority + 3;
    const std::string host = url.substr(start, url.find_first_of("/?#", start) - start);
    if (host.find(' ') != std::string::npos) {
      return std::string("invalid character \" \" in host name");
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_service_account_options(const ServiceAccountOptions& options) {
  std::vector<std::string> problems;
  std::set<std::string> seen;
  for (const std::string& issuer : options.issuers) {
    if (issuer.empty()) {
      problems.push_back("service-account-issuer should not be an empty string");
      continue;
    }
    if (issuer.find(':') != std::string::npos) {
      if (auto why = url_parse_error(issuer)) {
        problems.push_back("service-account-issuer " + common::go_quote(issuer) +
                           " contained a ':' but was not a valid URL: parse " +
                           common::go_quote(issuer) + ": " + *why);
        continue;
      }
    }
    if (!seen.insert(issuer).second) {
      problems.push_back("service-account-issuer " + common::go_quote(issuer) +
                         " is already specified");
    }
  }
  if (!options.signing_key_pem.empty()) {
    if (auto key = serviceaccount::SigningKey::from_pem(options.signing_key_pem); !key) {
      problems.push_back("failed to parse service-account-issuer-key-file: " + key.error());
    }
  }
  for (const auto& [name, pem] : options.key_files) {
    if (auto keys = serviceaccount::public_keys_from_pem(pem); !keys) {
      problems.push_back("failed to parse key file " + common::go_quote(name) +
                         ": error reading public key file " + name + ": " + keys.error());
    }
  }
  const auto max = options.max_expiration;
  if (max.count() != 0 && (max < std::chrono::hours(1) || max > std::chrono::seconds(1LL << 32))) {
    problems.push_back(
        "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds");
  }
  if (!options.jwks_uri.empty() && options.jwks_uri.rfind("https://", 0) != 0) {
    problems.push_back("service-account-jwks-uri requires https scheme, parsed as: " +
                       options.jwks_uri);
  }
  if (problems.empty()) {
    return std::nullopt;
  }
  std::string out;
  for (const auto& problem : problems) {
    out += (out.empty() ? "" : "\n") + problem;
  }
  return out;
}

common::Result<std::string> ensure_signing_key(const std::filesystem::path& pki_dir) {
  using Failure = common::Result<std::string>;
  const auto key_file = pki_dir / "sa.key";
  const auto pub_file = pki_dir / "sa.pub";
  std::string pem;
  auto existing = common::read_file(key_file);
  if (existing) {
    pem = std::move(*existing);
  } else if (existing.error().missing()) {
    std::error_code ec;
    std::filesystem::create_directories(pki_dir, ec);
    pem = serviceaccount::generate_rsa_key_pem();
    if (pem.empty()) {
      return Failure::failure(key_file.string() + ": cannot generate an RSA key");
    }
    if (auto written = common::write_file_durably(key_file, pem, 0600); !written.error.empty()) {
      return Failure::failure(written.error);
    }
    std::filesystem::remove(pub_file, ec);  // the old public key belongs to another key
  } else {
    return Failure::failure(existing.error().message);
  }
  auto key = serviceaccount::SigningKey::from_pem(pem);
  if (!key) {
    return Failure::failure(key_file.string() + ": " + key.error());
  }
  if (std::error_code ec; !std::filesystem::exists(pub_file, ec)) {
    auto written = common::write_file_durably(pub_file, key->public_key().pem(), 0644);
    if (!written.error.empty()) {
      return Failure::failure(written.error);
    }
  }
  return pem;
}

}  // namespace apiserver
