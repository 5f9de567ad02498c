#include "nodes/pod_tokens.h"

#include <algorithm>

#include "client/objects.h"

namespace cluster {
namespace {

constexpr int64_t kDefaultExpirationSeconds = 3600;
// The kubelet refreshes a token whose age passed this, whatever its expiration.
constexpr auto kMaxTokenAge = std::chrono::hours(24);
constexpr int64_t kRefreshPercent = 20;  // of the life left when it is refreshed
constexpr int64_t kMaxExpirationSeconds = int64_t{1} << 32;  // TokenRequest's limit

}  // namespace

std::vector<TokenSource> token_sources(const json& pod) {
  std::vector<TokenSource> out;
  const json* volumes = at(pod, {"spec", "volumes"});
  if (volumes == nullptr || !volumes->is_array()) {
    return out;
  }
  for (const json& volume : *volumes) {
    const json* sources = at(volume, {"projected", "sources"});
    if (sources == nullptr || !sources->is_array()) {
      continue;
    }
    for (const json& source : *sources) {
      const json* projection = at(source, {"serviceAccountToken"});
      if (projection == nullptr || !projection->is_object()) {
        continue;
      }
      int64_t expiration = int_at(*projection, {"expirationSeconds"}, kDefaultExpirationSeconds);
      out.push_back({string_at(volume, {"name"}), string_at(*projection, {"path"}),
                     string_at(*projection, {"audience"}),
                     expiration > 0 ? expiration : kDefaultExpirationSeconds});
    }
  }
  return out;
}

json token_request(const json& pod, const TokenSource& source) {
  json spec = {
      {"expirationSeconds", source.expiration_seconds},
      {"boundObjectRef",
       {{"apiVersion", "v1"}, {"kind", "Pod"}, {"name", name_of(pod)}, {"uid", uid_of(pod)}}}};
  if (!source.audience.empty()) {
    spec["audiences"] = json::array({source.audience});
  }
  return {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", spec}};
}

std::chrono::system_clock::time_point HeldToken::refresh_due() const {
  const auto life = std::chrono::seconds(expiration_seconds);
  const auto issued = expires - life;
  return std::min(issued + kMaxTokenAge,
                  expires - std::chrono::seconds(expiration_seconds * kRefreshPercent / 100));
}

std::optional<HeldToken> held_token(const json& answer) {
  HeldToken held;
  held.token = string_at(answer, {"status", "token"});
  const auto expires = parse_time(string_at(answer, {"status", "expirationTimestamp"}));
  held.expiration_seconds = int_at(answer, {"spec", "expirationSeconds"}, 0);
  if (held.token.empty() || !expires || held.expiration_seconds <= 0 ||
      held.expiration_seconds > kMaxExpirationSeconds) {
    return std::nullopt;
  }
  held.expires = *expires;
  return held;
}

std::string failed_mount_message(const TokenSource& source, const std::string& error) {
  return "MountVolume.SetUp failed for volume \"" + source.volume +
         "\" : failed to fetch token: " + error;
}

}  // namespace cluster
