// GET /debug/requests: the traces of the last requests (trace::TraceLog), newest last, as JSON.
// Query parameters narrow them: user, verb, resource, name (exact matches) and limit (the newest
// N). Each trace has the request (method, target, verb, resource, namespace, name), who made it,
// the answer's code and time, each pipeline stage's decision and time, and the notes of the
// layers below (the storage keys and revisions). Requests to /debug/requests are not traced.
#pragma once

#include "apiserver/http.h"
#include "trace/request_trace.h"

namespace apiserver::endpoints {

inline constexpr const char* kDebugRequestsPath = "/debug/requests";

http::Response serve_debug_requests(const http::Request& request, const trace::TraceLog& log);

}  // namespace apiserver::endpoints
