// The validator of TokenRequest tokens (kube-apiserver's serviceaccount validator, with the
// v1.32 feature gates ServiceAccountTokenJTI, ServiceAccountTokenPodNodeInfo and
// ServiceAccountTokenNodeBindingValidation on, as they are by default).
#include "serviceaccount/object_lookup.h"
#include "serviceaccount/validators.h"

namespace apiserver::serviceaccount {
namespace {

// go-jose's default leeway for exp, nbf and iat, which kube-apiserver also allows for deletions.
constexpr int64_t kLeewaySeconds = 60;

constexpr const char* kInvalidated = "service account token has been invalidated";

// go-jose's Claims.Validate at `now`: the error kube-apiserver words it as, or nullopt.
std::optional<std::string> time_error(const PublicClaims& claims,
                                      std::chrono::system_clock::time_point now) {
  const auto since_epoch = now.time_since_epoch();
  const auto whole = std::chrono::floor<std::chrono::seconds>(since_epoch);
  const int64_t seconds = whole.count();
  const bool fraction = since_epoch > whole;
  if (claims.not_before && seconds + kLeewaySeconds < *claims.not_before) {
    return "service account token is not valid yet";
  }
  if (claims.expiry && (seconds - kLeewaySeconds > *claims.expiry ||
                        (seconds - kLeewaySeconds == *claims.expiry && fraction))) {
    return "service account token has expired";
  }
  if (claims.issued_at && seconds + kLeewaySeconds < *claims.issued_at) {
    return "service account token is issued in the future";
  }
  return std::nullopt;
}

// A bound object the token names (`word`: "secret", "pod", "node"): there, with the token's uid,
// and not deleted before `cutoff`; else why the token no longer holds.
std::optional<std::string> bound_object_error(const ObjectGetter& get, const std::string& resource,
                                              const std::string& word, const std::string& ns,
                                              const ObjectRef& ref,
                                              std::chrono::system_clock::time_point cutoff) {
  auto object = lookup(get, resource, ns, ref.name);
  if (!object) {
    return kInvalidated;
  }
  if (ref.uid != uid_of(*object)) {
    return word + " UID (" + uid_of(*object) + ") does not match service account " + word +
           " ref claim (" + ref.uid + ")";
  }
  if (being_deleted(*object, cutoff)) {
    return kInvalidated;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> BoundValidator::private_claims_error(const JoseJson& payload) const {
  auto claims = read_bound_claims(payload);
  return claims ? std::nullopt : std::optional<std::string>(claims.error());
}

common::Result<ServiceAccountInfo> BoundValidator::validate(std::string_view,
                                                            const PublicClaims& claims,
                                                            const JoseJson& payload) const {
  using Failure = common::Result<ServiceAccountInfo>;
  auto read = read_bound_claims(payload);
  if (!read) {
    return Failure::failure(read.error());
  }
  const BoundPrivateClaims& bound = *read;
  const auto now = clock_.system_now();
  if (auto error = time_error(claims, now)) {
    return Failure::failure(*error);
  }
  // Things deleted more than the leeway ago no longer count.
  const auto cutoff = now - std::chrono::seconds(kLeewaySeconds);
  const std::string& ns = bound.namespace_;
  const ObjectRef& sa_ref = bound.service_account;
  auto service_account = lookup(get_, "serviceaccounts", ns, sa_ref.name);
  if (!service_account) {
    return Failure::failure(service_account.error());
  }
  if (uid_of(*service_account) != sa_ref.uid) {
    return Failure::failure("service account UID (" + uid_of(*service_account) +
                            ") does not match claim (" + sa_ref.uid + ")");
  }
  if (being_deleted(*service_account, cutoff)) {
    return Failure::failure("service account " + ns + "/" + sa_ref.name + " has been deleted");
  }
  if (bound.secret) {
    if (auto error = bound_object_error(get_, "secrets", "secret", ns, *bound.secret, cutoff)) {
      return Failure::failure(*error);
    }
  }
  ServiceAccountInfo info;
  info.namespace_ = ns;
  info.name = sa_ref.name;
  info.uid = sa_ref.uid;
  if (bound.pod) {
    if (auto error = bound_object_error(get_, "pods", "pod", ns, *bound.pod, cutoff)) {
      return Failure::failure(*error);
    }
    info.pod_name = bound.pod->name;
    info.pod_uid = bound.pod->uid;
  }
  if (bound.node) {
    // A pod-bound token's node is reported, not checked; a node-bound one's is checked.
    if (!bound.pod) {
      if (auto error = bound_object_error(get_, "nodes", "node", "", *bound.node, cutoff)) {
        return Failure::failure(*error);
      }
    }
    info.node_name = bound.node->name;
    info.node_uid = bound.node->uid;
  }
  if (!claims.id.empty()) {
    info.credential_id = "JTI=" + claims.id;
  }
  return info;
}

}  // namespace apiserver::serviceaccount
