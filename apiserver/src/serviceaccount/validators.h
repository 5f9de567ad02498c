// What a service-account token says once its signature is good, checked against the cluster as
// kube-apiserver's validators check it: the bound validator for TokenRequest tokens, the legacy
// validator for the token controller's Secret tokens. Both look the objects up on every use, so
// a token stops working once what it names is gone or replaced (another uid).
//
// Thread-safe: validators hold only what they were built with.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/result.h"
#include "filters/authentication.h"
#include "serviceaccount/claims.h"

namespace apiserver::serviceaccount {

// The stored object of a core/v1 resource ("serviceaccounts", "secrets", "pods", "nodes";
// namespace empty for nodes): nullopt when there is none, an error when it cannot be read.
using ObjectGetter = std::function<common::Result<std::optional<nlohmann::json>>(
    const std::string& resource, const std::string& ns, const std::string& name)>;

// Who a valid token stands for (apiserver's serviceaccount.ServiceAccountInfo).
struct ServiceAccountInfo {
  std::string namespace_, name, uid;
  std::string pod_name, pod_uid, node_name, node_uid;
  std::string credential_id;  // "JTI=<jti>" for bound tokens that carry one

  // system:serviceaccount:<ns>:<name>, groups system:serviceaccounts and
  // system:serviceaccounts:<ns>, the uid, and the extra authentication.kubernetes.io/pod-name,
  // pod-uid, node-name, node-uid and credential-id that apply.
  filters::UserInfo user_info() const;
};

class Validator {
 public:
  virtual ~Validator() = default;
  // The decode error of the token's private claims (its "kubernetes.io" object, or the legacy
  // flat claims), or nullopt; checked with the signature, before any audience.
  virtual std::optional<std::string> private_claims_error(const JoseJson& payload) const = 0;
  // The account the token stands for, or why it does not (the texts reach the log and
  // TokenReview's status.error).
  virtual common::Result<ServiceAccountInfo> validate(std::string_view token,
                                                      const PublicClaims& claims,
                                                      const JoseJson& payload) const = 0;
};

// TokenRequest tokens: exp, nbf and iat with a minute's leeway; the service account (same uid,
// not deleted over a minute ago); a bound secret or pod (same; for a pod, its node's claims are
// only reported); a node bound alone (same).
class BoundValidator final : public Validator {
 public:
  BoundValidator(ObjectGetter get, const common::Clock& clock)
      : get_(std::move(get)), clock_(clock) {}
  std::optional<std::string> private_claims_error(const JoseJson& payload) const override;
  common::Result<ServiceAccountInfo> validate(std::string_view token, const PublicClaims& claims,
                                              const JoseJson& payload) const override;

 private:
  ObjectGetter get_;
  const common::Clock& clock_;
};

// Called when a legacy token is used and its Secret's kubernetes.io/legacy-token-last-used label
// is neither today nor tomorrow (UTC): namespace, name and uid of the Secret to label.
using LegacyTokenUse =
    std::function<void(const std::string& ns, const std::string& name, const std::string& uid)>;

// Legacy Secret tokens: all four claims and a matching sub; the Secret still there, not being
// deleted, holding this very token; the service account there, not being deleted, same uid; no
// kubernetes.io/legacy-token-invalid-since label on the Secret.
class LegacyValidator final : public Validator {
 public:
  LegacyValidator(ObjectGetter get, const common::Clock& clock, LegacyTokenUse used)
      : get_(std::move(get)), clock_(clock), used_(std::move(used)) {}
  std::optional<std::string> private_claims_error(const JoseJson& payload) const override;
  common::Result<ServiceAccountInfo> validate(std::string_view token, const PublicClaims& claims,
                                              const JoseJson& payload) const override;

 private:
  void track_use(const nlohmann::json& secret) const;

  ObjectGetter get_;
  const common::Clock& clock_;
  LegacyTokenUse used_;
};

inline constexpr const char* kLastUsedLabel = "kubernetes.io/legacy-token-last-used";
inline constexpr const char* kInvalidSinceLabel = "kubernetes.io/legacy-token-invalid-since";

// The UTC date of `when` as YYYY-MM-DD, and of the day after.
std::string utc_date(std::chrono::system_clock::time_point when);

}  // namespace apiserver::serviceaccount
