// JSON Web Signatures in the compact serialization (RFC 7515), the form of every service-account
// token: base64url(header) "." base64url(payload) "." base64url(signature).
//
// Reading follows go-jose (v2), which kube-apiserver verifies tokens with: exactly three parts,
// each base64url (trailing '=' tolerated), a header that is a JSON object whose "alg" and "kid",
// when present, are strings. Verification accepts RS256/384/512 and PS256/384/512 with an RSA key,
// ES256/384/512 with an ECDSA key; any other algorithm, a non-empty "crit" header or a bad
// signature fails it.
//
// Pure functions; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "serviceaccount/jose_json.h"
#include "serviceaccount/keys.h"

namespace apiserver::serviceaccount {

// The longest token read; longer ones are no token of ours (answered as "invalid bearer token").
inline constexpr size_t kMaxTokenBytes = 1 << 20;

struct CompactJws {
  std::string_view signing_input;  // "<header>.<payload>" as sent
  std::string algorithm;           // the header's "alg"
  bool critical = false;           // the header has a non-empty "crit"
  std::string payload;             // decoded
  std::string signature;           // decoded
};

// The payload of `token` as kube-apiserver peeks at it before verifying anything: three parts,
// the second strict base64url without padding. nullopt otherwise (or past kMaxTokenBytes).
std::optional<std::string> peek_payload(std::string_view token);

// The token read as go-jose reads it; nullopt when it is no compact JWS. `token` must outlive
// the result.
std::optional<CompactJws> parse_compact(std::string_view token);

// Whether `key` verifies the signature with the header's algorithm.
bool verify(const CompactJws& jws, const PublicKey& key);

// A compact JWS of `claims` signed by `key`, with the protected header {"alg", "kid"} that
// kube-apiserver writes.
std::string sign_compact(const SigningKey& key, const nlohmann::json& claims);

}  // namespace apiserver::serviceaccount
