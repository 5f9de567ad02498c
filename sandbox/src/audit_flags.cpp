#include "audit_flags.h"

#include <charconv>

namespace sandbox {

std::vector<FlagSpec> audit_flags() {
  return {
      {"audit-policy-file", "", true, "FILE",
       "audit.k8s.io/v1 Policy (YAML or JSON) saying which requests are audited and how much; "
       "without it nothing is audited"},
      {"audit-log-path", "", true, "PATH",
       "write audit events to this file as JSON lines, one per stage ('-' for standard output)"},
      {"audit-log-format", "", true, "FORMAT",
       "format of the audit log: json (the default; "
       "legacy is not supported)"},
      {"audit-log-maxsize", "", true, "MB",
       "rotate the audit log once it would grow past this many megabytes (default 0: 100)"},
      {"audit-log-maxbackup", "", true, "N",
       "keep at most this many rotated audit logs (default 0: all)"},
      {"audit-log-maxage", "", true, "DAYS",
       "remove rotated audit logs older than this many days (default 0: never)"},
  };
}

common::Result<apiserver::AuditOptions> audit_options(const ParsedFlags& flags) {
  using Failure = common::Result<apiserver::AuditOptions>;
  apiserver::AuditOptions options;
  options.policy_file = flags.get("audit-policy-file");
  options.log_path = flags.get("audit-log-path");
  options.log_format = flags.get("audit-log-format", "json");
  for (auto [name, target] : {std::pair{"audit-log-maxsize", &options.log_max_size_mb},
                              std::pair{"audit-log-maxbackup", &options.log_max_backups},
                              std::pair{"audit-log-maxage", &options.log_max_age_days}}) {
    if (!flags.has(name)) {
      continue;
    }
    const std::string text = flags.get(name);
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *target);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      return Failure::failure(
          "invalid argument \"" + text + "\" for \"--" + name +
          "\" flag: strconv.ParseInt: parsing \"" + text + "\": " +
          (ec == std::errc::result_out_of_range ? "value out of range" : "invalid syntax"));
    }
  }
  if (auto problem = apiserver::check_audit_options(options)) {
    return Failure::failure(*problem);
  }
  return options;
}

}  // namespace sandbox
