// PersistentVolumeClaimResize (plugin/pkg/admission/storage/persistentvolume/resize): an update
// of a PersistentVolumeClaim that grows spec.resources.requests.storage is refused unless the
// claim was Bound and its StorageClass (the same before and after; the
// volume.beta.kubernetes.io/storage-class annotation wins over spec.storageClassName) exists and
// sets allowVolumeExpansion: true. Shrinking is validation's to refuse; other updates pass.
#include "admission/plugins.h"
#include "common/go_quote.h"
#include "registry/go_values.h"
#include "registry/json_access.h"

namespace apiserver::admission {
namespace {

using nlohmann::json;

// helper.GetPersistentVolumeClaimClass.
std::string claim_class(const json& pvc) {
  const json* annotated = registry::find_path(
      pvc, {"metadata", "annotations", "volume.beta.kubernetes.io/storage-class"});
  if (annotated != nullptr && annotated->is_string()) {
    return annotated->get<std::string>();
  }
  return registry::string_at(pvc, {"spec", "storageClassName"});
}

// The requested size (zero when none is set, as Go's zero Quantity).
long double requested(const json& pvc) {
  const json* q = registry::find_path(pvc, {"spec", "resources", "requests", "storage"});
  return q != nullptr ? registry::go_quantity_value(*q).value_or(0) : 0;
}

class PersistentVolumeClaimResize final : public Plugin {
 public:
  explicit PersistentVolumeClaimResize(const Services& services) : services_(services) {}
  std::string_view name() const override { return "PersistentVolumeClaimResize"; }
  bool validates() const override { return true; }

  Decision validate(Attributes& a, std::string& note) override {
    const registry::Resource& r = *a.resource;
    if (a.operation != Operation::Update || !r.group.empty() ||
        r.resource != "persistentvolumeclaims" || !a.subresource.empty() || a.object == nullptr ||
        a.old_object == nullptr) {
      return std::nullopt;
    }
    if (requested(*a.object) <= requested(*a.old_object)) {
      return std::nullopt;
    }
    if (registry::string_at(*a.old_object, {"status", "phase"}) != "Bound") {
      return forbidden(a, "Only bound persistent volume claims can be expanded");
    }
    const std::string class_name = claim_class(*a.object);
    if (!expandable(class_name, claim_class(*a.old_object))) {
      return forbidden(a,
                       "only dynamically provisioned pvc can be resized and the storageclass that "
                       "provisions the pvc must support resize");
    }
    note = "the claim grows: StorageClass " + common::go_quote(class_name) +
           " allows volume expansion";
    return std::nullopt;
  }

 private:
  // The claim keeps its class, which exists and sets allowVolumeExpansion: true.
  bool expandable(const std::string& now, const std::string& before) const {
    if (now.empty() || now != before) {
      return false;
    }
    auto sc = services_.get("storage.k8s.io", "storageclasses", "", now);
    const json* allow = sc ? registry::find_path(*sc, {"allowVolumeExpansion"}) : nullptr;
    return allow != nullptr && allow->is_boolean() && allow->get<bool>();
  }

  const Services& services_;
};

}  // namespace

std::unique_ptr<Plugin> make_persistent_volume_claim_resize(const Services& services) {
  return std::make_unique<PersistentVolumeClaimResize>(services);
}

}  // namespace apiserver::admission
