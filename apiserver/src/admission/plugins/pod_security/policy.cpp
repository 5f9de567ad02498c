#include "admission/plugins/pod_security/policy.h"

#include <charconv>

namespace apiserver::admission::pod_security {

const char* const kEnforceLevelLabel = "pod-security.kubernetes.io/enforce";
const char* const kEnforceVersionLabel = "pod-security.kubernetes.io/enforce-version";
const char* const kAuditLevelLabel = "pod-security.kubernetes.io/audit";
const char* const kAuditVersionLabel = "pod-security.kubernetes.io/audit-version";
const char* const kWarnLevelLabel = "pod-security.kubernetes.io/warn";
const char* const kWarnVersionLabel = "pod-security.kubernetes.io/warn-version";

std::string level_name(Level level) {
  switch (level) {
    case Level::Privileged:
      return "privileged";
    case Level::Baseline:
      return "baseline";
    case Level::Restricted:
      return "restricted";
  }
  return "";
}

std::optional<Level> parse_level(const std::string& text) {
  if (text == "privileged") {
    return Level::Privileged;
  }
  if (text == "baseline") {
    return Level::Baseline;
  }
  if (text == "restricted") {
    return Level::Restricted;
  }
  return std::nullopt;
}

bool Version::older_than(const Version& other) const {
  if (latest) {
    return false;
  }
  if (other.latest) {
    return true;
  }
  return minor < other.minor;
}

std::string Version::str() const {
  return latest ? "latest" : "v1." + std::to_string(minor);
}

std::optional<Version> parse_version(const std::string& text) {
  if (text == "latest") {
    return Version::latest_version();
  }
  const std::string prefix = "v1.";
  if (text.size() <= prefix.size() || text.compare(0, prefix.size(), prefix) != 0) {
    return std::nullopt;
  }
  const std::string digits = text.substr(prefix.size());
  for (char c : digits) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
  }
  if (digits.size() > 1 && digits[0] == '0') {
    return std::nullopt;
  }
  int64_t minor = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), minor);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;  // out of range, as strconv.Atoi refuses it
  }
  return Version{minor, false};
}

std::string LevelVersion::str() const {
  return level_name(level) + ":" + version.str();
}

namespace {

const std::string kLevelError = "must be one of privileged, baseline, restricted";
const std::string kVersionError = "must be \"latest\" or \"v1.x\"";

registry::FieldError label_error(const std::string& label, const std::string& value,
                                 const std::string& why) {
  return registry::invalid_value("metadata.labels[" + label + "]", value, why);
}

// The label's value, when the label is there (a non-string value counts as "").
std::optional<std::string> label(const nlohmann::json& labels, const char* key) {
  auto it = labels.find(key);
  if (it == labels.end()) {
    return std::nullopt;
  }
  return it->is_string() ? it->get<std::string>() : std::string();
}

void read_level(const nlohmann::json& labels, const char* key, Level on_error, Level& level,
                std::vector<registry::FieldError>& errors) {
  if (auto value = label(labels, key)) {
    if (auto parsed = parse_level(*value)) {
      level = *parsed;
    } else {
      level = on_error;
      errors.push_back(label_error(key, *value, kLevelError));
    }
  }
}

void read_version(const nlohmann::json& labels, const char* key, Version& version,
                  std::vector<registry::FieldError>& errors) {
  if (auto value = label(labels, key)) {
    if (auto parsed = parse_version(*value)) {
      version = *parsed;
    } else {
      version = Version::latest_version();
      errors.push_back(label_error(key, *value, kVersionError));
    }
  }
}

}  // namespace

Resolved policy_to_evaluate(const nlohmann::json& labels) {
  Resolved out;
  if (!labels.is_object() || labels.empty()) {
    return out;
  }
  read_level(labels, kEnforceLevelLabel, Level::Restricted, out.policy.enforce.level, out.errors);
  read_version(labels, kEnforceVersionLabel, out.policy.enforce.version, out.errors);
  read_level(labels, kAuditLevelLabel, Level::Privileged, out.policy.audit.level, out.errors);
  read_version(labels, kAuditVersionLabel, out.policy.audit.version, out.errors);
  read_level(labels, kWarnLevelLabel, Level::Privileged, out.policy.warn.level, out.errors);
  read_version(labels, kWarnVersionLabel, out.policy.warn.version, out.errors);
  return out;
}

int compare_levels(Level a, Level b) {
  const int x = static_cast<int>(a);
  const int y = static_cast<int>(b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

}  // namespace apiserver::admission::pod_security
