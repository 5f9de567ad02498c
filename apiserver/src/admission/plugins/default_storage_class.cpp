// DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault): a
// PersistentVolumeClaim created without a class (spec.storageClassName unset and no
// volume.beta.kubernetes.io/storage-class annotation) gets the StorageClass annotated
// storageclass.kubernetes.io/is-default-class=true (or the beta annotation), the newest when
// several are. An empty storageClassName ("") is a class: the claim then asks for a volume with
// none, and stays as it is. No default class: the claim stays without one.
#include "admission/plugins.h"
#include "admission/plugins/default_class.h"
#include "registry/defaulting_fields.h"
#include "registry/json_access.h"

namespace apiserver::admission {
namespace {

using nlohmann::json;

class DefaultStorageClass final : public Plugin {
 public:
  explicit DefaultStorageClass(const Services& services) : services_(services) {}
  std::string_view name() const override { return "DefaultStorageClass"; }
  bool mutates() const override { return true; }

  Decision admit(Attributes& a, std::string& note) override {
    const registry::Resource& r = *a.resource;
    if (a.operation != Operation::Create || !r.group.empty() ||
        r.resource != "persistentvolumeclaims" || !a.subresource.empty() || a.object == nullptr) {
      return std::nullopt;
    }
    json* spec = registry::fields::object_at(*a.object, "spec");
    if (spec == nullptr || !registry::fields::unset(*spec, "storageClassName") ||
        registry::find_path(*a.object, {"metadata", "annotations",
                                        "volume.beta.kubernetes.io/storage-class"}) != nullptr) {
      return std::nullopt;  // the claim names its class
    }
    auto chosen = newest_default_class(services_.list("storage.k8s.io", "storageclasses", ""),
                                       {"storageclass.kubernetes.io/is-default-class",
                                        "storageclass.beta.kubernetes.io/is-default-class"});
    if (!chosen) {
      note = "no StorageClass is marked default: the claim stays without a class";
      return std::nullopt;
    }
    (*spec)["storageClassName"] = chosen->name;
    note = describe_default(*chosen, "StorageClass");
    return std::nullopt;
  }

 private:
  const Services& services_;
};

}  // namespace

std::unique_ptr<Plugin> make_default_storage_class(const Services& services) {
  return std::make_unique<DefaultStorageClass>(services);
}

}  // namespace apiserver::admission
