#include "certificates/csr_signing_controller.h"

#include "certificates/csr_signing.h"
#include "client/objects.h"
#include "common/base64.h"

namespace cluster {
namespace {

const ResourceRef kCsrs{"certificates.k8s.io", "v1", "certificatesigningrequests", false};

std::vector<std::string> usages_of(const json& csr) {
  std::vector<std::string> usages;
  const json* list = at(csr, {"spec", "usages"});
  if (list != nullptr && list->is_array()) {
    for (const json& u : *list) {
      if (u.is_string()) {
        usages.push_back(u.get<std::string>());
      }
    }
  }
  return usages;
}

}  // namespace

CsrSigningController::CsrSigningController(const Client& client, CertificateSigner sign,
                                           std::chrono::seconds signing_duration,
                                           const common::Clock& clock)
    : Controller("certificatesigningrequest-signing-controller", clock),
      client_(client),
      sign_(std::move(sign)),
      signing_duration_(signing_duration),
      csrs_(client, kCsrs, {}, clock) {
  auto changed = [this](const json& csr) {
    if (wants_signing(csr)) {
      queue().add(Informer::key_of(csr));
    }
  };
  csrs_.add_handlers({.added = changed,
                      .updated = [changed](const json&, const json& csr) { changed(csr); },
                      .deleted = {}});
}

CsrSigningController::~CsrSigningController() {
  stop();
  csrs_.stop();
}

void CsrSigningController::start() {
  csrs_.start();
}

std::optional<std::string> CsrSigningController::sync(const std::string& key) {
  ObjectPtr cached = csrs_.get("", key);  // cluster-scoped: the key is the name
  if (cached == nullptr || !wants_signing(*cached) || !sign_) {
    return std::nullopt;
  }
  json csr = *cached;
  const std::string name = name_of(csr);
  const std::vector<std::string> usages = usages_of(csr);
  if (auto problem = client_usages_problem(usages)) {
    json& conditions = csr["status"]["conditions"];
    if (!conditions.is_array()) {
      conditions = json::array();
    }
    conditions.push_back(failed_condition(*problem, rfc3339(clock().system_now())));
    auto written = client_.update(kCsrs.object("", name, "status"), csr);
    if (!written && written.error().code != 409) {
      return "error adding failure condition for csr: " + written.error().message;
    }
    return std::nullopt;
  }
  auto request = common::base64_decode(string_at(csr, {"spec", "request"}));
  if (!request) {
    return "unable to parse csr \"" + name + "\": the request is not base64";
  }
  std::optional<int64_t> expiration;
  if (at(csr, {"spec", "expirationSeconds"}) != nullptr) {
    expiration = int_at(csr, {"spec", "expirationSeconds"}, 0);
  }
  auto certificate = sign_(*request, usages, signing_duration(signing_duration_, expiration));
  if (!certificate) {
    return "error auto signing csr: " + certificate.error();
  }
  csr["status"]["certificate"] = common::base64_encode(*certificate);
  auto written = client_.update(kCsrs.object("", name, "status"), csr);
  if (!written) {
    return "error updating signature for csr: " + written.error().message;
  }
  return std::nullopt;
}

}  // namespace cluster
