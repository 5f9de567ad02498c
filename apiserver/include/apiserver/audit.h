// Auditing, as kube-apiserver's --audit-policy-file and --audit-log-* flags ask for it: every
// request the policy selects is written to the log as audit.k8s.io/v1 Events, one JSON line per
// stage (src/audit). Without a policy file or a log path nothing is audited, as upstream; every
// response still carries an Audit-Id header.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/result.h"

namespace apiserver {

namespace audit {
class Auditor;
}

struct AuditOptions {
  std::string policy_file;          // --audit-policy-file
  std::string log_path;             // --audit-log-path; "-" for standard output
  std::string log_format = "json";  // --audit-log-format; only json is written
  int log_max_size_mb = 0;          // --audit-log-maxsize (0: 100 MB, lumberjack's default)
  int log_max_backups = 0;          // --audit-log-maxbackup (0: keep all)
  int log_max_age_days = 0;         // --audit-log-maxage (0: any age)
};

// Why the options are not valid, in kube-apiserver's words (checked before any file is read).
std::optional<std::string> check_audit_options(const AuditOptions& options);

// Reads the policy and opens the log (creating it 0600, its folder 0700) and starts the log
// writer thread. Null when the options ask for no audit. The error is kube-apiserver's text:
// "loading audit policy file: ..." for a policy it refuses, or why the log cannot be opened.
common::Result<std::shared_ptr<audit::Auditor>> start_audit(const AuditOptions& options);

}  // namespace apiserver
