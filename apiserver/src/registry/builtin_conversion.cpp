// Which built-in kinds convert between versions, at which versions, and where they are stored
// (kube-apiserver v1.32: each group's version priority in pkg/apis/<group>/install, and the
// resource encoding overrides of pkg/kubeapiserver/default_storage_factory_builder.go).
#include "registry/builtin_conversion.h"

#include <array>
#include <string_view>

#include "registry/kinds/conversions.h"

namespace apiserver::registry {
namespace {

// From the first version to the second, and back.
using Mapping = void (*)(nlohmann::json& object, bool forward);

void hpa(nlohmann::json& object, bool to_v1) {
  if (to_v1) {
    conversions::hpa_v2_to_v1(object);
  } else {
    conversions::hpa_v1_to_v2(object);
  }
}

void resource_slice(nlohmann::json& object, bool to_v1alpha3) {
  conversions::resource_slice_capacity(object, !to_v1alpha3);
}

struct Kind {
  std::string_view group;
  std::string_view kind;
  std::string_view resource;  // "" when not stored
  std::string_view storage;   // the first version
  std::string_view other;
  Mapping mapping;  // nullptr: the versions have the same fields
};

constexpr std::array<Kind, 9> kKinds{{
    {"autoscaling", "HorizontalPodAutoscaler", "horizontalpodautoscalers", "v2", "v1", &hpa},
    {"admissionregistration.k8s.io", "ValidatingAdmissionPolicy", "validatingadmissionpolicies",
     "v1", "v1beta1", nullptr},
    {"admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding",
     "validatingadmissionpolicybindings", "v1", "v1beta1", nullptr},
    {"resource.k8s.io", "DeviceClass", "deviceclasses", "v1beta1", "v1alpha3", nullptr},
    {"resource.k8s.io", "ResourceClaim", "resourceclaims", "v1beta1", "v1alpha3", nullptr},
    {"resource.k8s.io", "ResourceClaimTemplate", "resourceclaimtemplates", "v1beta1", "v1alpha3",
     nullptr},
    {"resource.k8s.io", "ResourceSlice", "resourceslices", "v1beta1", "v1alpha3", &resource_slice},
    {"storage.k8s.io", "VolumeAttributesClass", "volumeattributesclasses", "v1beta1", "v1alpha1",
     nullptr},
    {"authentication.k8s.io", "SelfSubjectReview", "", "v1", "v1beta1", nullptr},
}};

std::string in_quotes(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

}  // namespace

std::string builtin_storage_version(const std::string& group, const std::string& resource) {
  const std::string_view name = std::string_view(resource).substr(0, resource.find('/'));
  for (const Kind& k : kKinds) {
    if (!k.resource.empty() && k.group == group && k.resource == name) {
      return std::string(k.storage);
    }
  }
  return "";
}

std::optional<std::string> convert_builtin(const std::string& group, const std::string& kind,
                                           nlohmann::json& object, const std::string& to_version) {
  const Kind* entry = nullptr;
  for (const Kind& k : kKinds) {
    if (k.group == group && k.kind == kind) {
      entry = &k;
    }
  }
  if (entry == nullptr) {
    return "kind " + in_quotes(kind) + " of group " + in_quotes(group) +
           " has no conversion between versions";
  }
  if (!object.is_object()) {
    return "the object to convert is not a JSON object";
  }
  auto api = object.find("apiVersion");
  if (api == object.end() || !api->is_string()) {
    return "the object to convert has no apiVersion";
  }
  const std::string& from = api->get_ref<const std::string&>();
  const std::string prefix = group + "/";
  const std::string from_version =
      from.compare(0, prefix.size(), prefix) == 0 ? from.substr(prefix.size()) : std::string();
  auto served = [entry](std::string_view v) { return v == entry->storage || v == entry->other; };
  if (!served(from_version)) {
    return "no kind " + in_quotes(kind) + " is registered for version " + in_quotes(from);
  }
  if (!served(to_version)) {
    return "no kind " + in_quotes(kind) + " is registered for version " +
           in_quotes(group + "/" + to_version);
  }
  if (from_version != to_version && entry->mapping != nullptr) {
    entry->mapping(object, to_version == entry->other);
  }
  object["apiVersion"] = group + "/" + to_version;
  return std::nullopt;
}

}  // namespace apiserver::registry
