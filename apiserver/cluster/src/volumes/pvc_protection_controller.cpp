#include "volumes/pvc_protection_controller.h"

#include <algorithm>

#include "client/objects.h"

namespace cluster {
namespace {

const ResourceRef kClaims{"", "v1", "persistentvolumeclaims", true};
constexpr const char* kFinalizer = "kubernetes.io/pvc-protection";

}  // namespace

std::vector<std::string> claims_of_pod(const json& pod) {
  std::vector<std::string> names;
  const json* volumes = at(pod, {"spec", "volumes"});
  if (volumes == nullptr || !volumes->is_array()) {
    return names;
  }
  for (const json& v : *volumes) {
    const std::string claim = string_at(v, {"persistentVolumeClaim", "claimName"});
    if (!claim.empty()) {
      names.push_back(claim);
    } else if (at(v, {"ephemeral"}) != nullptr) {
      names.push_back(name_of(pod) + "-" + string_at(v, {"name"}));
    }
  }
  return names;
}

bool pod_uses_claim(const json& pod, const std::string& name) {
  const std::string phase = string_at(pod, {"status", "phase"});
  if (string_at(pod, {"spec", "nodeName"}).empty() || phase == "Succeeded" || phase == "Failed") {
    return false;
  }
  const auto claims = claims_of_pod(pod);
  return std::find(claims.begin(), claims.end(), name) != claims.end();
}

PvcProtectionController::PvcProtectionController(const Client& client, Informer& pods,
                                                 const common::Clock& clock)
    : Controller("persistentvolumeclaim-protection-controller", clock),
      client_(client),
      claims_(client, kClaims, {}, clock),
      pods_(pods) {
  auto changed = [this](const json& c) {
    if (being_deleted(c) && has_finalizer(c, kFinalizer)) {
      queue().add(Informer::key_of(c));
    }
  };
  claims_.add_handlers({.added = changed,
                        .updated = [changed](const json&, const json& c) { changed(c); },
                        .deleted = {}});
  pods_.add_handlers({.added = {},
                      .updated = [this](const json&, const json& p) { pod_changed(p); },
                      .deleted = [this](const json& p) { pod_changed(p); }});
}

PvcProtectionController::~PvcProtectionController() {
  stop();
  claims_.stop();
}

void PvcProtectionController::start() {
  claims_.start();
}

void PvcProtectionController::pod_changed(const json& pod) {
  for (const auto& claim : claims_of_pod(pod)) {
    queue().add(namespace_of(pod) + "/" + claim);
  }
}

std::optional<std::string> PvcProtectionController::sync(const std::string& key) {
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  ObjectPtr claim = claims_.get(ns, name);
  if (claim == nullptr || !being_deleted(*claim) || !has_finalizer(*claim, kFinalizer)) {
    return std::nullopt;
  }
  for (const ObjectPtr& pod : pods_.list(ns)) {
    if (pod_uses_claim(*pod, name)) {
      return std::nullopt;  // the pod's change brings the claim back here
    }
  }
  json updated = *claim;
  remove_finalizer(updated, kFinalizer);
  auto written = client_.update(kClaims.object(ns, name), updated);
  if (!written && !written.error().not_found()) {
    return "removing the pvc-protection finalizer of " + key + ": " + written.error().message;
  }
  return std::nullopt;
}

}  // namespace cluster
