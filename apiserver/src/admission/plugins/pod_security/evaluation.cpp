#include "admission/plugins/pod_security/evaluation.h"

#include <algorithm>
#include <set>

namespace apiserver::admission::pod_security {
namespace {

struct Active {
  std::string_view id;
  const VersionedCheck* revision;
};

// The revision of `check` in force at v1.<minor>, or null before its first one.
const VersionedCheck* revision_at(const Check& check, int64_t minor) {
  const VersionedCheck* found = nullptr;
  for (const auto& v : check.versions) {
    if (v.since <= minor) {
      found = &v;
    }
  }
  return found;
}

std::vector<Active> active_checks(const LevelVersion& lv) {
  std::vector<Active> out;
  if (lv.level == Level::Privileged) {
    return out;
  }
  const int64_t minor =
      lv.version.latest ? kNewestPolicyMinor : std::min(lv.version.minor, kNewestPolicyMinor);
  std::vector<Active> restricted;
  std::set<std::string_view> overridden;
  if (lv.level == Level::Restricted) {
    for (const auto& check : restricted_checks()) {
      if (const VersionedCheck* r = revision_at(check, minor)) {
        restricted.push_back({check.id, r});
        overridden.insert(r->overrides.begin(), r->overrides.end());
      }
    }
  }
  for (const auto& check : baseline_checks()) {
    const VersionedCheck* r = revision_at(check, minor);
    if (r != nullptr && overridden.count(check.id) == 0) {
      out.push_back({check.id, r});
    }
  }
  auto by_id = [](const Active& a, const Active& b) { return a.id < b.id; };
  std::sort(out.begin(), out.end(), by_id);
  std::sort(restricted.begin(), restricted.end(), by_id);
  out.insert(out.end(), restricted.begin(), restricted.end());
  return out;
}

}  // namespace

std::vector<CheckResult> evaluate_pod(const LevelVersion& lv, const nlohmann::json& metadata,
                                      const nlohmann::json& spec) {
  std::vector<CheckResult> results;
  for (const auto& active : active_checks(lv)) {
    results.push_back(active.revision->check(metadata, spec));
  }
  return results;
}

std::vector<std::string> check_ids(const LevelVersion& lv) {
  std::vector<std::string> ids;
  for (const auto& active : active_checks(lv)) {
    ids.emplace_back(active.id);
  }
  return ids;
}

Aggregate aggregate(const std::vector<CheckResult>& results) {
  Aggregate out;
  for (const auto& r : results) {
    if (r.allowed) {
      continue;
    }
    out.reasons.push_back(r.reason.empty() ? "unknown forbidden reason" : r.reason);
    out.details.push_back(r.detail);
  }
  out.allowed = out.reasons.empty();
  return out;
}

std::string Aggregate::forbidden_reason() const {
  return join(reasons, ", ");
}

std::string Aggregate::forbidden_detail() const {
  std::string out;
  for (size_t i = 0; i < reasons.size(); ++i) {
    if (i != 0) {
      out += ", ";
    }
    out += reasons[i];
    if (!details[i].empty()) {
      out += " (" + details[i] + ")";
    }
  }
  return out;
}

}  // namespace apiserver::admission::pod_security
