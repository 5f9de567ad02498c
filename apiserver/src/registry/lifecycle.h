// Deprecation warnings for the prerelease (alpha and beta) API versions that kube-apiserver v1.32
// can serve when they are switched on with --runtime-config. Upstream answers every request made
// through a deprecated version with an HTTP `Warning: 299 - "<text>"` header; this file supplies
// the text.
//
// The figures in the table are the ones upstream's v1.32 sources carry in their
// prerelease-lifecycle tags (introduced / deprecated / removed / replacement), after the
// generator's defaults are applied: deprecated = introduced + 3 minors and removed =
// deprecated + 3 minors unless a tag says otherwise. GA (v1, v2) kinds carry no lifecycle and
// never warn.
//
// Worked example: the served release is 1.32 and authentication.k8s.io/v1beta1 SelfSubjectReview
// was introduced in 1.27 (so deprecated in 1.30, unavailable in 1.33, no replacement named):
//   deprecation_warning("authentication.k8s.io", "v1beta1", "SelfSubjectReview")
//     == "authentication.k8s.io/v1beta1 SelfSubjectReview is deprecated in v1.30+, "
//        "unavailable in v1.33+"
// while deprecation_warning("networking.k8s.io", "v1beta1", "IPAddress") is nullopt (introduced
// in 1.31, deprecated only from 1.34).
//
// Pure functions over a constant table; safe from any thread.
#pragma once

#include <optional>
#include <span>
#include <string>

namespace apiserver::registry {

// A Kubernetes minor release. {0, 0} stands for "not set" (upstream's convention too).
struct Release {
  int major = 0;
  int minor = 0;

  bool set() const { return major != 0 || minor != 0; }
  friend bool operator==(const Release&, const Release&) = default;
  friend auto operator<=>(const Release&, const Release&) = default;
};

// The release whose behaviour this server copies; warnings are computed against it.
inline constexpr Release kServedRelease{1, 32};

// One kind of one prerelease group/version. `group` is "" for the core group. A replacement
// with an empty kind means upstream names none (the warning then has no "; use ..." part).
struct ApiLifecycle {
  const char* group;
  const char* version;
  const char* kind;
  Release introduced;
  Release deprecated;  // {0, 0}: the package has no lifecycle at all, so it never warns
  Release removed;
  const char* replacement_group;
  const char* replacement_version;
  const char* replacement_kind;
};

// Every row of the table, in group/version/kind order (tests iterate it).
std::span<const ApiLifecycle> api_lifecycles();

// The row for group/version/kind, or nullptr for kinds without one (GA kinds among them, but
// core/v1 ComponentStatus).
const ApiLifecycle* find_api_lifecycle(const std::string& group, const std::string& version,
                                       const std::string& kind);

// The warning text for a request served through group/version/kind at `at`, or nullopt when
// that kind is not deprecated then. A kind counts as deprecated once `at` reaches its deprecated
// release, or its removed one (which upstream treats the same way).
std::optional<std::string> deprecation_warning_at(const std::string& group,
                                                  const std::string& version,
                                                  const std::string& kind, Release at);

// deprecation_warning_at(..., kServedRelease): the text kube-apiserver v1.32 sends.
std::optional<std::string> deprecation_warning(const std::string& group, const std::string& version,
                                               const std::string& kind);

}  // namespace apiserver::registry
