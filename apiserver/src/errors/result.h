// errors::Result<T>: a value, or the Status that says why there is none (common/result.h with the
// API's error). The API layers return expected failures (not found, conflict, invalid,
// forbidden) this way; a Status is the whole answer, ready to be written.
#pragma once

#include "common/result.h"
#include "errors/status.h"

namespace apiserver::errors {

template <class T>
using Result = common::Result<T, Status>;

}  // namespace apiserver::errors
