// The claims of service-account tokens, written and read as kube-apiserver does.
//
// A bound token (TokenRequest) carries the registered claims sub, aud, iat, nbf, exp and jti,
// and a private "kubernetes.io" object naming what it is bound to:
//
//   {"aud": ["https://kubernetes.default.svc.cluster.local"], "exp": 1700003600,
//    "iat": 1700000000, "iss": "https://kubernetes.default.svc.cluster.local",
//    "jti": "2ae2...", "kubernetes.io": {"namespace": "default",
//      "node": {"name": "node-1", "uid": "..."}, "pod": {"name": "web", "uid": "..."},
//      "serviceaccount": {"name": "default", "uid": "..."}, "warnafter": 1700003607},
//    "nbf": 1700000000, "sub": "system:serviceaccount:default:default"}
//
// A legacy token (the token controller's, in a kubernetes.io/service-account-token Secret) has
// only sub and four flat claims, and never expires:
//
//   {"iss": "kubernetes/serviceaccount",
//    "kubernetes.io/serviceaccount/namespace": "default",
//    "kubernetes.io/serviceaccount/secret.name": "build-robot-token",
//    "kubernetes.io/serviceaccount/service-account.name": "build-robot",
//    "kubernetes.io/serviceaccount/service-account.uid": "...",
//    "sub": "system:serviceaccount:default:build-robot"}
//
// The issuer ("iss") is added by the signer. Keys come out sorted, as Go writes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "serviceaccount/jose_json.h"

namespace apiserver::serviceaccount {

inline constexpr const char* kLegacyIssuer = "kubernetes/serviceaccount";

// "system:serviceaccount:<namespace>:<name>"; split_username reads it back (nullopt unless it
// has that prefix, exactly two parts, a valid namespace and service account name).
std::string service_account_username(const std::string& ns, const std::string& name);
std::optional<std::pair<std::string, std::string>> split_username(const std::string& username);

struct ObjectRef {
  std::string name;
  std::string uid;  // may be empty: a pod's node that could not be found
};

struct BoundTokenSpec {
  std::string namespace_;
  ObjectRef service_account;
  // At most one of pod and secret; node alone, or the node a bound pod runs on.
  std::optional<ObjectRef> pod, secret, node;
  std::vector<std::string> audiences;
  int64_t now = 0;                 // seconds since the epoch: iat and nbf
  int64_t expiration_seconds = 0;  // exp = now + this
  int64_t warn_after_seconds = 0;  // 0: no warnafter
  std::string id;                  // jti
};

nlohmann::json bound_claims(const BoundTokenSpec& spec);
nlohmann::json legacy_claims(const std::string& ns, const std::string& service_account,
                             const std::string& service_account_uid,
                             const std::string& secret_name);

// go-jose's jwt.Claims as decoded from a payload.
struct PublicClaims {
  std::string issuer, subject, id;
  std::vector<std::string> audience;
  std::optional<int64_t> expiry, not_before, issued_at;
};

struct BoundPrivateClaims {
  std::string namespace_;
  ObjectRef service_account;
  std::optional<ObjectRef> pod, secret, node;
  std::optional<int64_t> warn_after;
};

struct LegacyPrivateClaims {
  std::string namespace_, service_account, service_account_uid, secret_name;
};

// Each fails with the decoder's text when a claim has the wrong type.
common::Result<PublicClaims> read_public_claims(const JoseJson& payload);
common::Result<BoundPrivateClaims> read_bound_claims(const JoseJson& payload);
common::Result<LegacyPrivateClaims> read_legacy_claims(const JoseJson& payload);

}  // namespace apiserver::serviceaccount
