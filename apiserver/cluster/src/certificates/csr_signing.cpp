#include "certificates/csr_signing.h"

#include "client/objects.h"

namespace cluster {

bool wants_signing(const nlohmann::json& csr) {
  if (string_at(csr, {"spec", "signerName"}) != kKubeApiServerClientSigner ||
      !string_at(csr, {"status", "certificate"}).empty()) {
    return false;
  }
  return condition_true(csr, "Approved") && !condition_true(csr, "Denied") &&
         !condition_true(csr, "Failed");
}

std::optional<std::string> client_usages_problem(const std::vector<std::string>& usages) {
  bool client_auth = false;
  for (const std::string& usage : usages) {
    if (usage == "client auth") {
      client_auth = true;
    } else if (usage != "digital signature" && usage != "key encipherment") {
      return "invalid usage for client certificate: " + usage;
    }
  }
  if (!client_auth) {
    return std::string("missing required usage for client certificate: client auth");
  }
  return std::nullopt;
}

std::chrono::seconds signing_duration(std::chrono::seconds limit,
                                      std::optional<int64_t> expiration_seconds) {
  constexpr std::chrono::seconds kShortest = std::chrono::minutes(10);
  if (!expiration_seconds) {
    return limit;
  }
  const std::chrono::seconds requested(*expiration_seconds);
  if (requested > limit) {
    return limit;
  }
  return requested < kShortest ? kShortest : requested;
}

nlohmann::json failed_condition(const std::string& message, const std::string& now) {
  return {{"type", "Failed"},
          {"status", "True"},
          {"reason", "SignerValidationFailure"},
          {"message", message},
          {"lastUpdateTime", now}};
}

}  // namespace cluster
