// The kubelet's token manager, as pure decisions: which service-account tokens a pod's projected
// volumes need (the kube-api-access-* volume the API server injects asks for one with path
// "token", expirationSeconds 3607 and no audience, i.e. the API's audiences), the TokenRequest a
// kubelet sends for one (bound to the pod by name and uid), and when a token it holds is due for
// a refresh: once 80% of its life has passed, or 24 hours after it was issued, whichever comes
// first (upstream adds up to 10 s of jitter; here the time is exact).
//
// Worked example: a token answered with spec.expirationSeconds 3607 and an expirationTimestamp
// of 13:00:07 was issued at 12:00:00 and is refreshed from 12:48:06 on (3607 · 20% = 721 s before
// it expires).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cluster {

using nlohmann::json;

// One serviceAccountToken source of a projected volume.
struct TokenSource {
  std::string volume;              // the volume's name, "kube-api-access-x7k2p"
  std::string path;                // the file's path in the volume, "token"
  std::string audience;            // empty: the API server's audiences
  int64_t expiration_seconds = 0;  // 3600 when the source says none (the API's default)

  // What tells two sources' tokens apart for one pod.
  std::string key() const { return volume + "/" + path; }
};

// Every serviceAccountToken source of the pod's projected volumes, in the spec's order. Values of
// the wrong type count as absent.
std::vector<TokenSource> token_sources(const json& pod);

// The TokenRequest the kubelet sends for `source` to
// /api/v1/namespaces/<ns>/serviceaccounts/<pod's serviceAccountName>/token.
json token_request(const json& pod, const TokenSource& source);

// A token the kubelet holds, from a TokenRequest's answer.
struct HeldToken {
  std::string token;
  std::chrono::system_clock::time_point expires;
  int64_t expiration_seconds = 0;  // the answer's spec.expirationSeconds

  // When it is to be refreshed (see the file's comment).
  std::chrono::system_clock::time_point refresh_due() const;
};

// The token of a TokenRequest answer; nullopt when the answer lacks the token, its expiration
// timestamp or a positive spec.expirationSeconds.
std::optional<HeldToken> held_token(const json& answer);

// The event a kubelet records when a token volume cannot be set up, as its volume manager words
// it: MountVolume.SetUp failed for volume "<volume>" : failed to fetch token: <error>.
std::string failed_mount_message(const TokenSource& source, const std::string& error);

}  // namespace cluster
