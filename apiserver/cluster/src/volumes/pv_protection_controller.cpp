#include "volumes/pv_protection_controller.h"

#include "client/objects.h"

namespace cluster {
namespace {

const ResourceRef kVolumes{"", "v1", "persistentvolumes", false};
constexpr const char* kFinalizer = "kubernetes.io/pv-protection";

bool protected_and_deleted(const json& pv) {
  return being_deleted(pv) && has_finalizer(pv, kFinalizer);
}

}  // namespace

PvProtectionController::PvProtectionController(const Client& client, const common::Clock& clock)
    : Controller("persistentvolume-protection-controller", clock),
      client_(client),
      volumes_(client, kVolumes, {}, clock) {
  auto changed = [this](const json& pv) {
    if (protected_and_deleted(pv)) {
      queue().add(Informer::key_of(pv));
    }
  };
  volumes_.add_handlers({.added = changed,
                         .updated = [changed](const json&, const json& pv) { changed(pv); },
                         .deleted = {}});
}

PvProtectionController::~PvProtectionController() {
  stop();
  volumes_.stop();
}

void PvProtectionController::start() {
  volumes_.start();
}

std::optional<std::string> PvProtectionController::sync(const std::string& key) {
  ObjectPtr pv = volumes_.get("", key);
  if (pv == nullptr || !protected_and_deleted(*pv) ||
      string_at(*pv, {"status", "phase"}) == "Bound") {
    return std::nullopt;  // a Bound volume stays until its claim lets go
  }
  json updated = *pv;
  remove_finalizer(updated, kFinalizer);
  auto written = client_.update(kVolumes.object("", key), updated);
  if (!written && !written.error().not_found()) {
    return "removing the pv-protection finalizer of " + key + ": " + written.error().message;
  }
  return std::nullopt;
}

}  // namespace cluster
