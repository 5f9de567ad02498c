// The validator of legacy Secret tokens (kube-apiserver's legacy validator with
// --service-account-lookup, as by default), and the use tracking of v1.32: the Secret's
// kubernetes.io/legacy-token-last-used label, and the refusal of a Secret labelled
// kubernetes.io/legacy-token-invalid-since.
#include <openssl/crypto.h>

#include "common/base64.h"
#include "registry/json_access.h"
#include "serviceaccount/object_lookup.h"
#include "serviceaccount/validators.h"

namespace apiserver::serviceaccount {

std::optional<std::string> LegacyValidator::private_claims_error(const JoseJson& payload) const {
  auto claims = read_legacy_claims(payload);
  return claims ? std::nullopt : std::optional<std::string>(claims.error());
}

void LegacyValidator::track_use(const nlohmann::json& secret) const {
  const auto now = clock_.system_now();
  const std::string last_used = registry::string_at(secret, {"metadata", "labels", kLastUsedLabel});
  if (last_used == utc_date(now) || last_used == utc_date(now + std::chrono::hours(24))) {
    return;
  }
  if (used_) {
    used_(registry::string_at(secret, {"metadata", "namespace"}),
          registry::string_at(secret, {"metadata", "name"}), uid_of(secret));
  }
}

common::Result<ServiceAccountInfo> LegacyValidator::validate(std::string_view token,
                                                             const PublicClaims& claims,
                                                             const JoseJson& payload) const {
  using Failure = common::Result<ServiceAccountInfo>;
  auto read = read_legacy_claims(payload);
  if (!read) {
    return Failure::failure(read.error());
  }
  const LegacyPrivateClaims& legacy = *read;
  if (claims.subject.empty()) {
    return Failure::failure("sub claim is missing");
  }
  if (legacy.namespace_.empty()) {
    return Failure::failure("namespace claim is missing");
  }
  if (legacy.secret_name.empty()) {
    return Failure::failure("secretName claim is missing");
  }
  if (legacy.service_account.empty()) {
    return Failure::failure("serviceAccountName claim is missing");
  }
  if (legacy.service_account_uid.empty()) {
    return Failure::failure("serviceAccountUID claim is missing");
  }
  auto subject = split_username(claims.subject);
  if (!subject || subject->first != legacy.namespace_ ||
      subject->second != legacy.service_account) {
    return Failure::failure("sub claim is invalid");
  }
  const std::string& ns = legacy.namespace_;
  const std::string& name = legacy.service_account;
  auto secret = lookup(get_, "secrets", ns, legacy.secret_name);
  if (!secret || being_deleted(*secret)) {
    return Failure::failure("Token has been invalidated");
  }
  const std::string encoded = registry::string_at(*secret, {"data", "token"});
  const std::string stored = common::base64_decode(encoded).value_or("");
  if (stored.size() != token.size() ||
      CRYPTO_memcmp(stored.data(), token.data(), token.size()) != 0) {
    return Failure::failure("Token does not match server's copy");
  }
  auto service_account = lookup(get_, "serviceaccounts", ns, name);
  if (!service_account) {
    return Failure::failure(service_account.error());
  }
  if (being_deleted(*service_account)) {
    return Failure::failure("ServiceAccount " + ns + "/" + name + " has been deleted");
  }
  if (uid_of(*service_account) != legacy.service_account_uid) {
    return Failure::failure("ServiceAccount UID (" + uid_of(*service_account) +
                            ") does not match claim (" + legacy.service_account_uid + ")");
  }
  if (!registry::string_at(*secret, {"metadata", "labels", kInvalidSinceLabel}).empty()) {
    track_use(*secret);
    return Failure::failure("the token in secret " + ns + "/" + legacy.secret_name +
                            " for service account " + ns + "/" + name +
                            " has been marked invalid. Use tokens from the TokenRequest API or "
                            "manually created secret-based tokens, or remove the '" +
                            kInvalidSinceLabel +
                            "' label from the secret to temporarily allow use of this token");
  }
  track_use(*secret);
  ServiceAccountInfo info;
  info.namespace_ = ns;
  info.name = name;
  info.uid = legacy.service_account_uid;
  return info;
}

}  // namespace apiserver::serviceaccount
