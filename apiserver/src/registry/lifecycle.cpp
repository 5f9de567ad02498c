#include "registry/lifecycle.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace apiserver::registry {
namespace {

constexpr const char* kNone = "";

// The kinds v1.32 can serve through a prerelease version, and core/v1 ComponentStatus (GA, tagged
// deprecated); list kinds are left out because
// the warning is chosen per resource kind. Rows whose deprecated release is 1.32 or earlier are
// the ones that warn today; the others are kept so the table says why they stay quiet.
// One row per kind reads better than the one-field-per-line layout the formatter would pick.
// clang-format off
constexpr std::array kTable{
    // The one GA kind upstream tags deprecated (since 1.19); never removed.
    ApiLifecycle{"", "v1", "ComponentStatus", {1, 0}, {1, 19}, {0, 0}, kNone, kNone, kNone},
    // New in 1.32; every figure below without a comment is the generator's default.
    ApiLifecycle{"admissionregistration.k8s.io", "v1alpha1", "MutatingAdmissionPolicy",
                 {1, 32}, {1, 35}, {1, 38}, kNone, kNone, kNone},
    ApiLifecycle{"admissionregistration.k8s.io", "v1alpha1", "MutatingAdmissionPolicyBinding",
                 {1, 32}, {1, 35}, {1, 38}, kNone, kNone, kNone},
    // Beta since 1.28; the defaults make it deprecated from 1.31. Upstream names no replacement
    // even though admissionregistration.k8s.io/v1 exists, so the warning stops after "v1.34+".
    ApiLifecycle{"admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicy",
                 {1, 28}, {1, 31}, {1, 34}, kNone, kNone, kNone},
    ApiLifecycle{"admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicyBinding",
                 {1, 28}, {1, 31}, {1, 34}, kNone, kNone, kNone},
    // Beta since 1.27 (GA in 1.28), no replacement tag.
    ApiLifecycle{"authentication.k8s.io", "v1beta1", "SelfSubjectReview",
                 {1, 27}, {1, 30}, {1, 33}, kNone, kNone, kNone},
    // Alpha since 1.26; the default would have stopped serving it in 1.32, so v1.32 moved its
    // deprecation to 1.31 explicitly, which keeps it served until 1.34.
    ApiLifecycle{"certificates.k8s.io", "v1alpha1", "ClusterTrustBundle",
                 {1, 26}, {1, 31}, {1, 34}, kNone, kNone, kNone},
    ApiLifecycle{"coordination.k8s.io", "v1alpha2", "LeaseCandidate",
                 {1, 32}, {1, 35}, {1, 38}, kNone, kNone, kNone},
    // The internal.apiserver.k8s.io package does not generate lifecycle methods at all, so
    // upstream never warns for it, however old it is.
    ApiLifecycle{"internal.apiserver.k8s.io", "v1alpha1", "StorageVersion",
                 {0, 0}, {0, 0}, {0, 0}, kNone, kNone, kNone},
    ApiLifecycle{"networking.k8s.io", "v1beta1", "IPAddress",
                 {1, 31}, {1, 34}, {1, 37}, kNone, kNone, kNone},
    ApiLifecycle{"networking.k8s.io", "v1beta1", "ServiceCIDR",
                 {1, 31}, {1, 34}, {1, 37}, kNone, kNone, kNone},
    // v1alpha3 was re-dated to 1.31 (its types were first tagged 1.26, which would have
    // removed them in 1.32).
    ApiLifecycle{"resource.k8s.io", "v1alpha3", "DeviceClass",
                 {1, 31}, {1, 34}, {1, 37}, kNone, kNone, kNone},
    ApiLifecycle{"resource.k8s.io", "v1alpha3", "ResourceClaim",
                 {1, 31}, {1, 34}, {1, 37}, kNone, kNone, kNone},
    ApiLifecycle{"resource.k8s.io", "v1alpha3", "ResourceClaimTemplate",
                 {1, 31}, {1, 34}, {1, 37}, kNone, kNone, kNone},
    ApiLifecycle{"resource.k8s.io", "v1alpha3", "ResourceSlice",
                 {1, 31}, {1, 34}, {1, 37}, kNone, kNone, kNone},
    ApiLifecycle{"resource.k8s.io", "v1beta1", "DeviceClass",
                 {1, 32}, {1, 35}, {1, 38}, kNone, kNone, kNone},
    ApiLifecycle{"resource.k8s.io", "v1beta1", "ResourceClaim",
                 {1, 32}, {1, 35}, {1, 38}, kNone, kNone, kNone},
    ApiLifecycle{"resource.k8s.io", "v1beta1", "ResourceClaimTemplate",
                 {1, 32}, {1, 35}, {1, 38}, kNone, kNone, kNone},
    ApiLifecycle{"resource.k8s.io", "v1beta1", "ResourceSlice",
                 {1, 32}, {1, 35}, {1, 38}, kNone, kNone, kNone},
    // Alpha since 1.29, so deprecated exactly in 1.32. v1.32 names no replacement (the pointer
    // to a newer version was only added when the kind went GA).
    ApiLifecycle{"storage.k8s.io", "v1alpha1", "VolumeAttributesClass",
                 {1, 29}, {1, 32}, {1, 35}, kNone, kNone, kNone},
    ApiLifecycle{"storage.k8s.io", "v1beta1", "VolumeAttributesClass",
                 {1, 31}, {1, 34}, {1, 37}, kNone, kNone, kNone},
    ApiLifecycle{"storagemigration.k8s.io", "v1alpha1", "StorageVersionMigration",
                 {1, 30}, {1, 33}, {1, 36}, kNone, kNone, kNone},
};
// clang-format on

// "group/version", or just the version for the core group ("v1"), as upstream prints it.
std::string group_version(std::string_view group, std::string_view version) {
  std::string out;
  if (!group.empty()) {
    out.append(group);
    out.push_back('/');
  }
  out.append(version);
  return out;
}

std::string release_text(Release release) {
  return "v" + std::to_string(release.major) + "." + std::to_string(release.minor);
}

}  // namespace

std::span<const ApiLifecycle> api_lifecycles() {
  return kTable;
}

const ApiLifecycle* find_api_lifecycle(const std::string& group, const std::string& version,
                                       const std::string& kind) {
  auto it = std::find_if(kTable.begin(), kTable.end(), [&](const ApiLifecycle& row) {
    return group == row.group && version == row.version && kind == row.kind;
  });
  return it == kTable.end() ? nullptr : &*it;
}

std::optional<std::string> deprecation_warning_at(const std::string& group,
                                                  const std::string& version,
                                                  const std::string& kind, Release at) {
  const ApiLifecycle* row = find_api_lifecycle(group, version, kind);
  // A zero deprecated release means "no lifecycle": upstream checks that before anything else.
  if (row == nullptr || !row->deprecated.set()) {
    return std::nullopt;
  }
  bool deprecated = at >= row->deprecated || (row->removed.set() && at >= row->removed);
  if (!deprecated) {
    return std::nullopt;
  }
  std::string text = group_version(row->group, row->version) + " " + row->kind +
                     " is deprecated in " + release_text(row->deprecated) + "+";
  if (row->removed.set()) {
    text += ", unavailable in " + release_text(row->removed) + "+";
  }
  if (*row->replacement_kind != '\0') {
    text += "; use " + group_version(row->replacement_group, row->replacement_version) + " " +
            row->replacement_kind;
  }
  return text;
}

std::optional<std::string> deprecation_warning(const std::string& group, const std::string& version,
                                               const std::string& kind) {
  return deprecation_warning_at(group, version, kind, kServedRelease);
}

}  // namespace apiserver::registry
