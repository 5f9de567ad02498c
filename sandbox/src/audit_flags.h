// serve's audit flags, as kube-apiserver's: --audit-policy-file, --audit-log-path,
// --audit-log-format, --audit-log-maxsize, --audit-log-maxbackup and --audit-log-maxage.
#pragma once

#include <vector>

#include "apiserver/audit.h"
#include "common/result.h"
#include "flags.h"

namespace sandbox {

std::vector<FlagSpec> audit_flags();

// The options the flags ask for, checked (apiserver::check_audit_options); the error is a usage
// error's text.
common::Result<apiserver::AuditOptions> audit_options(const ParsedFlags& flags);

}  // namespace sandbox
