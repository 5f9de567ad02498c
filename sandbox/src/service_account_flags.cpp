#include "service_account_flags.h"

#include "apiserver/http.h"
#include "common/read_file.h"

namespace sandbox {
namespace {

// A comma-separated list flag (pflag's StringSlice): every occurrence adds its items.
std::vector<std::string> list_values(const ParsedFlags& flags, const std::string& name) {
  std::vector<std::string> out;
  for (const std::string& value : flags.all(name)) {
    size_t start = 0;
    while (start <= value.size()) {
      size_t comma = value.find(',', start);
      if (comma == std::string::npos) {
        comma = value.size();
      }
      out.push_back(value.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return out;
}

}  // namespace

std::vector<FlagSpec> service_account_flags() {
  return {
      {"service-account-issuer", "", true, "URL",
       "the issuer written into new service-account tokens; repeat it to accept tokens of older "
       "issuers (default https://kubernetes.default.svc.cluster.local)"},
      {"service-account-signing-key-file", "", true, "FILE",
       "private key (RSA or ECDSA, PEM) that signs service-account tokens (default: the data "
       "directory's pki/sa.key, made at first start)"},
      {"service-account-key-file", "", true, "FILE",
       "PEM public keys, private keys or certificates that verify service-account tokens; "
       "repeatable (default: the signing key's public key)"},
      {"api-audiences", "", true, "LIST",
       "the audiences a token must name to be used against the API (default: the issuers)"},
      {"service-account-max-token-expiration", "", true, "DURATION",
       "longest life of a requested token, 1h to 2^32s (default: no limit)"},
      {"service-account-extend-token-expiration", "", false, "",
       "give pod-bound tokens asked for 3607s a year's life and a warnafter claim (default "
       "true; =false turns it off)"},
      {"service-account-jwks-uri", "", true, "URL",
       "jwks_uri of /.well-known/openid-configuration (default: https://<address>/openid/v1/jwks)"},
  };
}

common::Result<ServiceAccountFlags> service_account_flags(const ParsedFlags& flags) {
  using Failure = common::Result<ServiceAccountFlags>;
  ServiceAccountFlags out;
  out.issuers = flags.all("service-account-issuer");
  out.key_files = flags.all("service-account-key-file");
  out.signing_key_file = flags.get("service-account-signing-key-file");
  out.api_audiences = list_values(flags, "api-audiences");
  out.jwks_uri = flags.get("service-account-jwks-uri");
  if (flags.has("service-account-max-token-expiration")) {
    const std::string text = flags.get("service-account-max-token-expiration");
    auto parsed = apiserver::http::parse_duration(text);
    if (!parsed || parsed->count() < 0) {
      return Failure::failure(
          "--service-account-max-token-expiration must be a duration such as 24h, got \"" + text +
          "\"");
    }
    out.max_expiration = std::chrono::duration_cast<std::chrono::seconds>(*parsed);
  }
  auto extend = flags.all("service-account-extend-token-expiration");
  out.extend_expiration = extend.empty() || extend.back() == "true";
  return out;
}

common::Result<apiserver::ServiceAccountOptions> service_account_options(
    const ServiceAccountFlags& flags, const std::filesystem::path& pki_dir) {
  using Failure = common::Result<apiserver::ServiceAccountOptions>;
  apiserver::ServiceAccountOptions options;
  options.issuers = flags.issuers;
  options.api_audiences = flags.api_audiences;
  options.max_expiration = flags.max_expiration;
  options.extend_expiration = flags.extend_expiration;
  options.jwks_uri = flags.jwks_uri;
  if (flags.signing_key_file.empty()) {
    auto key = apiserver::ensure_signing_key(pki_dir);
    if (!key) {
      return Failure::failure(key.error());
    }
    options.signing_key_pem = std::move(*key);
  } else {
    auto key = common::read_file(flags.signing_key_file);
    if (!key) {
      return Failure::failure("--service-account-signing-key-file " + key.error().message);
    }
    options.signing_key_pem = std::move(*key);
  }
  for (const std::string& file : flags.key_files) {
    auto pem = common::read_file(file);
    if (!pem) {
      return Failure::failure("--service-account-key-file " + pem.error().message);
    }
    options.key_files.emplace_back(file, std::move(*pem));
  }
  if (auto problem = apiserver::check_service_account_options(options)) {
    return Failure::failure(*problem);
  }
  return options;
}

}  // namespace sandbox
