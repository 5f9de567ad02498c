#include "registry/lifecycle.h"

#include <catch2/catch.hpp>
#include <optional>
#include <set>
#include <string>
#include <tuple>

using apiserver::registry::api_lifecycles;
using apiserver::registry::ApiLifecycle;
using apiserver::registry::deprecation_warning;
using apiserver::registry::deprecation_warning_at;
using apiserver::registry::find_api_lifecycle;
using apiserver::registry::kServedRelease;
using apiserver::registry::Release;

TEST_CASE("deprecated prerelease kinds get kube-apiserver v1.32's warning text", "[lifecycle]") {
  CHECK(deprecation_warning("authentication.k8s.io", "v1beta1", "SelfSubjectReview") ==
        std::optional<std::string>(
            "authentication.k8s.io/v1beta1 SelfSubjectReview is deprecated in v1.30+, "
            "unavailable in v1.33+"));
  CHECK(
      deprecation_warning("admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicy") ==
      std::optional<std::string>(
          "admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicy is deprecated in "
          "v1.31+, unavailable in v1.34+"));
  CHECK(deprecation_warning("admissionregistration.k8s.io", "v1beta1",
                            "ValidatingAdmissionPolicyBinding") ==
        std::optional<std::string>(
            "admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicyBinding is deprecated "
            "in v1.31+, unavailable in v1.34+"));
  // Deprecated in exactly the served release: the comparison is inclusive.
  CHECK(deprecation_warning("storage.k8s.io", "v1alpha1", "VolumeAttributesClass") ==
        std::optional<std::string>(
            "storage.k8s.io/v1alpha1 VolumeAttributesClass is deprecated in v1.32+, "
            "unavailable in v1.35+"));
}

TEST_CASE("GA kinds never warn", "[lifecycle]") {
  CHECK(deprecation_warning("", "v1", "ConfigMap") == std::nullopt);
  CHECK(deprecation_warning("apps", "v1", "Deployment") == std::nullopt);
  CHECK(find_api_lifecycle("", "v1", "ConfigMap") == nullptr);
}

TEST_CASE("prerelease kinds not yet deprecated in v1.32 stay quiet", "[lifecycle]") {
  CHECK(deprecation_warning("networking.k8s.io", "v1beta1", "ServiceCIDR") == std::nullopt);
  CHECK(deprecation_warning("resource.k8s.io", "v1beta1", "ResourceClaim") == std::nullopt);
  CHECK(deprecation_warning("storage.k8s.io", "v1beta1", "VolumeAttributesClass") == std::nullopt);
  CHECK(deprecation_warning("coordination.k8s.io", "v1alpha2", "LeaseCandidate") == std::nullopt);
  // Same kind name, other version: the version decides, not the kind.
  CHECK(deprecation_warning("authentication.k8s.io", "v1", "SelfSubjectReview") == std::nullopt);
}

TEST_CASE("a package without lifecycle never warns", "[lifecycle]") {
  CHECK(deprecation_warning("internal.apiserver.k8s.io", "v1alpha1", "StorageVersion") ==
        std::nullopt);
  CHECK(deprecation_warning_at("internal.apiserver.k8s.io", "v1alpha1", "StorageVersion",
                               Release{1, 99}) == std::nullopt);
}

TEST_CASE("the warning follows the release it is asked about", "[lifecycle]") {
  CHECK(deprecation_warning_at("networking.k8s.io", "v1beta1", "IPAddress", Release{1, 33}) ==
        std::nullopt);
  CHECK(deprecation_warning_at("networking.k8s.io", "v1beta1", "IPAddress", Release{1, 34}) ==
        std::optional<std::string>(
            "networking.k8s.io/v1beta1 IPAddress is deprecated in v1.34+, unavailable in v1.37+"));
  CHECK(deprecation_warning_at("authentication.k8s.io", "v1beta1", "SelfSubjectReview",
                               Release{1, 29}) == std::nullopt);
  CHECK(deprecation_warning_at("", "v1", "ConfigMap", Release{2, 0}) == std::nullopt);
  CHECK(deprecation_warning("", "v1", "ComponentStatus") ==
        std::optional<std::string>("v1 ComponentStatus is deprecated in v1.19+"));
}

TEST_CASE("the lifecycle table is consistent", "[lifecycle]") {
  CHECK(kServedRelease == Release{1, 32});
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  for (const ApiLifecycle& row : api_lifecycles()) {
    INFO(row.group << "/" << row.version << " " << row.kind);
    CHECK(seen.emplace(row.group, row.version, row.kind).second);
    // Prerelease versions have a lifecycle; a GA kind only when upstream tags it deprecated, and
    // then it is never removed.
    std::string version = row.version;
    if (version.find("alpha") == std::string::npos && version.find("beta") == std::string::npos) {
      CHECK(row.deprecated.set());
      CHECK_FALSE(row.removed.set());
      continue;
    }
    if (!row.deprecated.set()) {
      CHECK_FALSE(row.removed.set());
      continue;
    }
    CHECK(row.introduced.set());
    CHECK(row.introduced < row.deprecated);
    CHECK(row.deprecated < row.removed);
    // Every row describes something v1.32 still serves.
    CHECK(row.introduced <= kServedRelease);
    CHECK(kServedRelease < row.removed);
  }
  CHECK(seen.size() == 22);
}
