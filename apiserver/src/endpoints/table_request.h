// What a request asks of a Table answer (Accept: ...;as=Table): includeObject, and "now" for
// the ages.
#pragma once

#include "apiserver/http.h"
#include "errors/result.h"
#include "registry/table.h"

namespace apiserver::endpoints {

// The Table options of a request; a bad includeObject fails with the 400 kube-apiserver answers.
errors::Result<registry::TableOptions> table_options(const http::Request& request);

}  // namespace apiserver::endpoints
