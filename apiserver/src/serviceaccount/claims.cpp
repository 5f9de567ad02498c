#include "serviceaccount/claims.h"

#include "registry/objects.h"

namespace apiserver::serviceaccount {
namespace {

constexpr std::string_view kUsernamePrefix = "system:serviceaccount:";

nlohmann::json ref_json(const ObjectRef& ref) {
  nlohmann::json out = nlohmann::json::object();
  if (!ref.name.empty()) {
    out["name"] = ref.name;
  }
  if (!ref.uid.empty()) {
    out["uid"] = ref.uid;
  }
  return out;
}

std::optional<ObjectRef> read_ref(JoseReader& reader, const JoseJson& object,
                                  std::string_view key) {
  const JoseJson* found = reader.object(object, key, "serviceaccount.ref");
  if (found == nullptr) {
    return std::nullopt;
  }
  return ObjectRef{reader.string(*found, "name"), reader.string(*found, "uid")};
}

}  // namespace

std::string service_account_username(const std::string& ns, const std::string& name) {
  return std::string(kUsernamePrefix) + ns + ":" + name;
}

std::optional<std::pair<std::string, std::string>> split_username(const std::string& username) {
  if (username.rfind(kUsernamePrefix, 0) != 0) {
    return std::nullopt;
  }
  const std::string rest = username.substr(kUsernamePrefix.size());
  const size_t colon = rest.find(':');
  if (colon == std::string::npos || rest.find(':', colon + 1) != std::string::npos) {
    return std::nullopt;
  }
  std::string ns = rest.substr(0, colon);
  std::string name = rest.substr(colon + 1);
  if (!registry::check_name(ns, registry::NameRule::Dns1123Label).empty() ||
      !registry::check_name(name, registry::NameRule::Dns1123Subdomain).empty()) {
    return std::nullopt;
  }
  return std::pair{std::move(ns), std::move(name)};
}

nlohmann::json bound_claims(const BoundTokenSpec& spec) {
  nlohmann::json kubernetes = {{"namespace", spec.namespace_},
                               {"serviceaccount", ref_json(spec.service_account)}};
  if (spec.pod) {
    kubernetes["pod"] = ref_json(*spec.pod);
  }
  if (spec.secret) {
    kubernetes["secret"] = ref_json(*spec.secret);
  }
  if (spec.node) {
    kubernetes["node"] = ref_json(*spec.node);
  }
  if (spec.warn_after_seconds != 0) {
    kubernetes["warnafter"] = spec.now + spec.warn_after_seconds;
  }
  nlohmann::json claims = {
      {"aud", spec.audiences},
      {"exp", spec.now + spec.expiration_seconds},
      {"iat", spec.now},
      {"kubernetes.io", std::move(kubernetes)},
      {"nbf", spec.now},
      {"sub", service_account_username(spec.namespace_, spec.service_account.name)}};
  if (!spec.id.empty()) {
    claims["jti"] = spec.id;
  }
  return claims;
}

nlohmann::json legacy_claims(const std::string& ns, const std::string& service_account,
                             const std::string& service_account_uid,
                             const std::string& secret_name) {
  return {{"kubernetes.io/serviceaccount/namespace", ns},
          {"kubernetes.io/serviceaccount/secret.name", secret_name},
          {"kubernetes.io/serviceaccount/service-account.name", service_account},
          {"kubernetes.io/serviceaccount/service-account.uid", service_account_uid},
          {"sub", service_account_username(ns, service_account)}};
}

common::Result<PublicClaims> read_public_claims(const JoseJson& payload) {
  JoseReader reader;
  PublicClaims claims;
  claims.issuer = reader.string(payload, "iss");
  claims.subject = reader.string(payload, "sub");
  claims.id = reader.string(payload, "jti");
  claims.audience = reader.audience(payload, "aud");
  claims.expiry = reader.numeric_date(payload, "exp");
  claims.not_before = reader.numeric_date(payload, "nbf");
  claims.issued_at = reader.numeric_date(payload, "iat");
  if (!reader.error.empty()) {
    return common::Result<PublicClaims>::failure(reader.error);
  }
  return claims;
}

common::Result<BoundPrivateClaims> read_bound_claims(const JoseJson& payload) {
  JoseReader reader;
  BoundPrivateClaims claims;
  if (const JoseJson* k8s = reader.object(payload, "kubernetes.io", "serviceaccount.kubernetes")) {
    claims.namespace_ = reader.string(*k8s, "namespace");
    if (auto sa = read_ref(reader, *k8s, "serviceaccount")) {
      claims.service_account = std::move(*sa);
    }
    claims.pod = read_ref(reader, *k8s, "pod");
    claims.secret = read_ref(reader, *k8s, "secret");
    claims.node = read_ref(reader, *k8s, "node");
    claims.warn_after = reader.numeric_date(*k8s, "warnafter");
  }
  if (!reader.error.empty()) {
    return common::Result<BoundPrivateClaims>::failure(reader.error);
  }
  return claims;
}

common::Result<LegacyPrivateClaims> read_legacy_claims(const JoseJson& payload) {
  JoseReader reader;
  LegacyPrivateClaims claims;
  claims.namespace_ = reader.string(payload, "kubernetes.io/serviceaccount/namespace");
  claims.secret_name = reader.string(payload, "kubernetes.io/serviceaccount/secret.name");
  claims.service_account =
      reader.string(payload, "kubernetes.io/serviceaccount/service-account.name");
  claims.service_account_uid =
      reader.string(payload, "kubernetes.io/serviceaccount/service-account.uid");
  if (!reader.error.empty()) {
    return common::Result<LegacyPrivateClaims>::failure(reader.error);
  }
  return claims;
}

}  // namespace apiserver::serviceaccount
