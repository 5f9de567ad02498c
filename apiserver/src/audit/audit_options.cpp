// The --audit-* options: their checks and the Auditor they start (include/apiserver/audit.h).
#include "apiserver/audit.h"

#include "apiserver/log.h"
#include "audit/auditor.h"
#include "common/read_file.h"

namespace apiserver {

std::optional<std::string> check_audit_options(const AuditOptions& options) {
  if (options.log_format == "legacy") {
    return "--audit-log-format legacy is not supported: only json is written";
  }
  if (options.log_format != "json") {
    return "invalid audit log format " + options.log_format +
           ", allowed formats are \"legacy,json\"";
  }
  if (options.log_max_age_days < 0) {
    return "--audit-log-maxage " + std::to_string(options.log_max_age_days) +
           " can't be a negative number";
  }
  if (options.log_max_backups < 0) {
    return "--audit-log-maxbackup " + std::to_string(options.log_max_backups) +
           " can't be a negative number";
  }
  if (options.log_max_size_mb < 0) {
    return "--audit-log-maxsize " + std::to_string(options.log_max_size_mb) +
           " can't be a negative number";
  }
  return std::nullopt;
}

common::Result<std::shared_ptr<audit::Auditor>> start_audit(const AuditOptions& options) {
  using Failure = common::Result<std::shared_ptr<audit::Auditor>>;
  if (auto problem = check_audit_options(options)) {
    return Failure::failure(*problem);
  }
  std::optional<audit::Policy> policy;
  if (!options.policy_file.empty()) {
    auto text = common::read_file(options.policy_file);
    if (!text) {
      return Failure::failure("loading audit policy file: failed to read file path \"" +
                              options.policy_file + "\": open " + text.error().message);
    }
    auto parsed = audit::parse_policy(*text, options.policy_file);
    if (!parsed) {
      return Failure::failure("loading audit policy file: " + parsed.error());
    }
    policy = std::move(*parsed);
  }
  if (options.log_path.empty()) {
    return std::shared_ptr<audit::Auditor>();
  }
  audit::RotationOptions rotation{options.log_max_size_mb, options.log_max_backups,
                                  options.log_max_age_days};
  auto file = std::make_unique<audit::LogFile>(options.log_path, rotation);
  if (auto error = file->open()) {
    return Failure::failure(*error);
  }
  if (!policy) {
    log::info(2, "No audit policy file provided, no events will be recorded for log backend");
    return std::shared_ptr<audit::Auditor>();
  }
  return std::make_shared<audit::Auditor>(std::move(*policy),
                                          std::make_unique<audit::LogWriter>(std::move(file)));
}

}  // namespace apiserver
