// Pod Security levels, policy versions and the namespace labels that choose them
// (k8s.io/pod-security-admission/api): pod-security.kubernetes.io/{enforce,audit,warn} name a
// level, the same with "-version" a version. Unset labels fall back to privileged:latest; a
// label that does not parse is an error, and the policy still resolves (an enforce level that
// does not parse means restricted, an audit or warn level that does not parse means privileged,
// a version that does not parse means latest), as upstream fails closed for enforce only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "registry/objects.h"

namespace apiserver::admission::pod_security {

enum class Level { Privileged, Baseline, Restricted };

std::string level_name(Level level);
// "privileged", "baseline" or "restricted"; nullopt for anything else.
std::optional<Level> parse_level(const std::string& text);

// A policy version: v1.<minor>, or latest (newer than every numbered version).
struct Version {
  int64_t minor = 0;
  bool latest = false;

  static Version latest_version() { return {0, true}; }
  bool older_than(const Version& other) const;
  bool operator==(const Version& other) const {
    return latest == other.latest && (latest || minor == other.minor);
  }
  bool operator!=(const Version& other) const { return !(*this == other); }
  std::string str() const;  // "latest" or "v1.<minor>"
};

// "latest", or "v1.<minor>" with a minor of decimal digits without a leading zero (any value
// that fits 64 bits, as upstream: v1.99 is accepted and evaluated as the newest policy).
std::optional<Version> parse_version(const std::string& text);

struct LevelVersion {
  Level level = Level::Privileged;
  Version version = Version::latest_version();

  bool operator==(const LevelVersion& other) const {
    return level == other.level && version == other.version;
  }
  bool operator!=(const LevelVersion& other) const { return !(*this == other); }
  std::string str() const;  // "baseline:latest"
};

struct Policy {
  LevelVersion enforce;
  LevelVersion audit;
  LevelVersion warn;

  bool fully_privileged() const {
    return enforce.level == Level::Privileged && audit.level == Level::Privileged &&
           warn.level == Level::Privileged;
  }
};

extern const char* const kEnforceLevelLabel;
extern const char* const kEnforceVersionLabel;
extern const char* const kAuditLevelLabel;
extern const char* const kAuditVersionLabel;
extern const char* const kWarnLevelLabel;
extern const char* const kWarnVersionLabel;

struct Resolved {
  Policy policy;
  // One per label that does not parse, in enforce, enforce-version, audit, audit-version, warn,
  // warn-version order: `metadata.labels[<label>]: Invalid value: "<value>": <why>`.
  std::vector<registry::FieldError> errors;
};

// The policy a namespace's labels (metadata.labels, any JSON; non-objects mean no labels) ask
// for, over the defaults privileged:latest.
Resolved policy_to_evaluate(const nlohmann::json& labels);

// -1, 0 or 1 as `a` is less strict than, as strict as, or stricter than `b`.
int compare_levels(Level a, Level b);

}  // namespace apiserver::admission::pod_security
