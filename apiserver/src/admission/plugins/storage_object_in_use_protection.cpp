// StorageObjectInUseProtection (plugin/pkg/admission/storage/storageobjectinuseprotection): every
// PersistentVolumeClaim created gets the kubernetes.io/pvc-protection finalizer and every
// PersistentVolume the kubernetes.io/pv-protection one (once), so that deleting one only marks
// it until upstream's protection controllers see it unused (by a pod, by a claim) and remove the
// finalizer. kube-sandbox runs neither controller: a marked claim or volume stays until its
// finalizer is removed by hand. Turned off, nothing is added.
#include "admission/plugins.h"
#include "registry/defaulting_fields.h"
#include "registry/json_access.h"

namespace apiserver::admission {
namespace {

class StorageObjectInUseProtection final : public Plugin {
 public:
  std::string_view name() const override { return "StorageObjectInUseProtection"; }
  bool mutates() const override { return true; }

  Decision admit(Attributes& a, std::string& note) override {
    const registry::Resource& r = *a.resource;
    if (a.operation != Operation::Create || !r.group.empty() || !a.subresource.empty() ||
        a.object == nullptr) {
      return std::nullopt;
    }
    const char* finalizer = nullptr;
    const char* what = nullptr;
    if (r.resource == "persistentvolumeclaims") {
      finalizer = "kubernetes.io/pvc-protection";
      what = "a pod uses the claim";
    } else if (r.resource == "persistentvolumes") {
      finalizer = "kubernetes.io/pv-protection";
      what = "a claim is bound to the volume";
    } else {
      return std::nullopt;
    }
    const nlohmann::json* list = registry::find_path(*a.object, {"metadata", "finalizers"});
    if (list != nullptr && list->is_array()) {
      for (const auto& f : *list) {
        if (f == finalizer) {
          return std::nullopt;
        }
      }
    }
    registry::fields::add_finalizer(*a.object, finalizer);
    note = std::string(finalizer) + " holds a deletion while " + what +
           " (the protection controller removes it then)";
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Plugin> make_storage_object_in_use_protection(const Services&) {
  return std::make_unique<StorageObjectInUseProtection>();
}

}  // namespace apiserver::admission
