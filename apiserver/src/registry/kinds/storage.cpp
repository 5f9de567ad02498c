// Volumes and their classes: PersistentVolumes and claims (defaults and validation; their
// protection finalizers and default class are admission's), StorageClasses,
// VolumeAttributesClasses, the CSI kinds and VolumeAttachments.
#include "registry/kinds/kinds.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "registry/defaulting_fields.h"
#include "registry/go_text.h"
#include "registry/go_values.h"
#include "registry/kinds/pod_spec.h"
#include "registry/print_cells.h"
#include "registry/table.h"
#include "registry/validation_rules.h"

namespace apiserver::registry::kinds {

namespace {

namespace validate {
using namespace rules;

void validate_pvc(const json& obj, Errors& out) {
  const json& spec = get(obj, "spec");
  const json& modes = get(spec, "accessModes");
  if (!modes.is_array() || modes.empty()) {
    out.push_back(required_value("spec.accessModes", "at least 1 access mode is required"));
  } else {
    static const std::vector<std::string> kModes = {"ReadOnlyMany", "ReadWriteMany",
                                                    "ReadWriteOnce", "ReadWriteOncePod"};
    for (const auto& m : modes) {
      const std::string mode = m.is_string() ? m.get<std::string>() : std::string();
      if (std::find(kModes.begin(), kModes.end(), mode) == kModes.end()) {
        out.push_back(not_supported("spec.accessModes", go_quote(mode), kModes));
      }
    }
  }
  const json& storage = get(get(get(spec, "resources"), "requests"), "storage");
  if (storage.is_null()) {
    out.push_back(required_value("spec.resources[storage]", ""));
  } else if (auto v = go_quantity_value(storage); v && *v <= 0) {
    out.push_back(invalid_value("spec.resources[storage]", quantity_text(storage),
                                "must be greater than zero"));
  }
}

void validate_pvc_update(const json& obj, const json& old, Errors& out) {
  json now = get(obj, "spec");
  json before = get(old, "spec");
  const json new_storage = get(get(get(now, "resources"), "requests"), "storage");
  const json old_storage = get(get(get(before, "resources"), "requests"), "storage");
  if (now.is_object() && before.is_object()) {
    if (now.contains("resources") && now["resources"].is_object()) {
      json& resources = before["resources"];
      if (!resources.is_object()) {
        resources = json::object();
      }
      resources["requests"] = now["resources"].value("requests", json());
    }
    // The claim's binding (volumeName) is set by the controller, which the check tolerates.
    if (str(before, "volumeName").empty() && now.contains("volumeName")) {
      before["volumeName"] = now["volumeName"];
    }
  }
  if (now != before) {
    // Upstream appends "\n" and a cmp.Diff of the internal spec; not reproduced. With the
    // VolumeAttributesClass gate on (off by default in 1.32) the text also names
    // volumeAttributesClassName (text unverified for 1.32).
    out.push_back(forbidden("spec",
                            "spec is immutable after creation except resources.requests for bound "
                            "claims"));
  }
  const auto a = go_quantity_value(new_storage);
  const auto b = go_quantity_value(old_storage);
  if (a && b && *a < *b) {
    out.push_back(
        forbidden("spec.resources.requests.storage", "field can not be less than previous value"));
  }
}

}  // namespace validate

namespace print {
using namespace cells;

constexpr const char* kBetaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";

json print_persistent_volume(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  std::string claim;
  if (const json& ref = at(spec, "claimRef"); ref.is_object()) {
    claim = str(at(ref, "namespace")) + "/" + str(at(ref, "name"));
  }
  std::string phase = str(at(obj, "status", "phase"));
  if (present(at(obj, "metadata", "deletionTimestamp"))) {
    phase = "Terminating";
  }
  // helper.GetPersistentVolumeClass: the beta annotation wins when present.
  const json& annotated = at(obj, "metadata", "annotations", kBetaStorageClassAnnotation);
  const std::string storage_class =
      annotated.is_string() ? str(annotated) : str(at(spec, "storageClassName"));
  const json& vac = at(spec, "volumeAttributesClassName");
  const json& mode = at(spec, "volumeMode");
  return json::array({name_of(obj), quantity(at(spec, "capacity", "storage")),
                      access_modes(at(spec, "accessModes")),
                      str(at(spec, "persistentVolumeReclaimPolicy")), phase, claim, storage_class,
                      vac.is_string() ? str(vac) : "<unset>", str(at(obj, "status", "reason")),
                      age(obj, c), mode.is_string() ? str(mode) : "<unset>"});
}

json print_persistent_volume_claim(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  std::string phase = str(at(obj, "status", "phase"));
  if (present(at(obj, "metadata", "deletionTimestamp"))) {
    phase = "Terminating";
  }
  const std::string volume = str(at(spec, "volumeName"));
  std::string capacity;
  std::string modes;
  if (!volume.empty()) {
    modes = access_modes(at(obj, "status", "accessModes"));
    capacity = quantity(at(obj, "status", "capacity", "storage"));
  }
  // helper.GetPersistentVolumeClaimClass.
  const json& annotated = at(obj, "metadata", "annotations", kBetaStorageClassAnnotation);
  const std::string storage_class =
      annotated.is_string() ? str(annotated) : str(at(spec, "storageClassName"));
  const json& vac = at(spec, "volumeAttributesClassName");
  const json& mode = at(spec, "volumeMode");
  return json::array({name_of(obj), phase, volume, capacity, modes, storage_class,
                      vac.is_string() ? str(vac) : "<unset>", age(obj, c),
                      mode.is_string() ? str(mode) : "<unset>"});
}

json print_storage_class(const json& obj, const Context& c) {
  std::string name = name_of(obj);
  const json& annotations = at(obj, "metadata", "annotations");
  if (str(at(annotations, "storageclass.kubernetes.io/is-default-class")) == "true" ||
      str(at(annotations, "storageclass.beta.kubernetes.io/is-default-class")) == "true") {
    name += " (default)";
  }
  const json& reclaim = at(obj, "reclaimPolicy");
  const json& binding = at(obj, "volumeBindingMode");
  return json::array({name, str(at(obj, "provisioner")),
                      reclaim.is_string() ? str(reclaim) : "Delete",
                      binding.is_string() ? str(binding) : "Immediate",
                      boolean(at(obj, "allowVolumeExpansion")), age(obj, c)});
}

json print_volume_attributes_class(const json& obj, const Context& c) {
  std::string name = name_of(obj);
  // Unverified annotation key (the upstream helper was not read).
  if (str(at(obj, "metadata", "annotations",
             "volumeattributesclass.alpha.kubernetes.io/is-default-class")) == "true") {
    name += " (default)";
  }
  return json::array({name, str(at(obj, "driverName")), age(obj, c)});
}

json print_csi_driver(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  std::vector<std::string> modes;
  for (const auto& m : arr(at(spec, "volumeLifecycleModes"))) {
    modes.push_back(str(m));
  }
  std::string mode_text = join(modes, ",");
  std::string tokens = "<unset>";
  if (at(spec, "tokenRequests").is_array()) {
    std::vector<std::string> audiences;
    for (const auto& t : arr(at(spec, "tokenRequests"))) {
      audiences.push_back(str(at(t, "audience")));
    }
    tokens = join(audiences, ",");
  }
  return json::array({name_of(obj), boolean(at(spec, "attachRequired"), true),
                      boolean(at(spec, "podInfoOnMount")), boolean(at(spec, "storageCapacity")),
                      tokens, boolean(at(spec, "requiresRepublish")),
                      mode_text.empty() ? "<none>" : mode_text, age(obj, c)});
}

json print_csi_node(const json& obj, const Context& c) {
  return json::array(
      {name_of(obj), static_cast<int64_t>(arr(at(obj, "spec", "drivers")).size()), age(obj, c)});
}

json print_csi_storage_capacity(const json& obj, const Context&) {
  const json& capacity = at(obj, "capacity");
  return json::array({name_of(obj), str(at(obj, "storageClassName")),
                      present(capacity) ? quantity(capacity) : "<unset>"});
}

json print_volume_attachment(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  return json::array({name_of(obj), str(at(spec, "attacher")),
                      str(at(spec, "source", "persistentVolumeName")), str(at(spec, "nodeName")),
                      boolean(at(obj, "status", "attached")), age(obj, c)});
}

}  // namespace print

namespace defaulting {
using namespace fields;

void default_pvc(json& pvc, const DefaultingContext&) {
  if (json* status = object_at(pvc, "status")) {
    default_string(*status, "phase", "Pending");
  }
  if (json* spec = object_at(pvc, "spec")) {
    default_pvc_spec(*spec);
  }
}

void default_pv(json& pv, const DefaultingContext&) {
  if (json* status = object_at(pv, "status")) {
    default_string(*status, "phase", "Pending");
  }
  if (json* spec = object_at(pv, "spec")) {
    default_string(*spec, "persistentVolumeReclaimPolicy", "Retain");
    default_value(*spec, "volumeMode", "Filesystem");
    if (json* host_path = existing_object(*spec, "hostPath")) {
      default_value(*host_path, "type", "");
    }
  }
}

}  // namespace defaulting

}  // namespace

void add_storage(Strategies& s) {
  s.push_back({.group = "",
               .kind = "PersistentVolume",
               .defaults = defaulting::default_pv,
               .print = print::print_persistent_volume});
  s.push_back({.group = "",
               .kind = "PersistentVolumeClaim",
               .defaults = defaulting::default_pvc,
               .validate = validate::validate_pvc,
               .validate_update = validate::validate_pvc_update,
               .print = print::print_persistent_volume_claim});
  s.push_back(
      {.group = "storage.k8s.io", .kind = "StorageClass", .print = print::print_storage_class});
  s.push_back({.group = "storage.k8s.io",
               .kind = "VolumeAttributesClass",
               .print = print::print_volume_attributes_class});
  s.push_back({.group = "storage.k8s.io", .kind = "CSIDriver", .print = print::print_csi_driver});
  s.push_back({.group = "storage.k8s.io", .kind = "CSINode", .print = print::print_csi_node});
  s.push_back({.group = "storage.k8s.io",
               .kind = "CSIStorageCapacity",
               .print = print::print_csi_storage_capacity});
  s.push_back({.group = "storage.k8s.io",
               .kind = "VolumeAttachment",
               .print = print::print_volume_attachment});
}

}  // namespace apiserver::registry::kinds
