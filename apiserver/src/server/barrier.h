// The last line of defence around code that serves a request or runs on a thread of its own: an
// exception that escapes it becomes a 500 InternalError Status for that one request (as
// apimachinery's errors.NewInternalError words it) and one error log line naming the request;
// the process and every other request carry on. Errors a caller expects are return values, never
// exceptions: reaching the barrier is a bug to fix.
#pragma once

#include <exception>
#include <functional>
#include <string>
#include <string_view>

#include "apiserver/http.h"
#include "guard.h"

namespace apiserver::server {

// "Internal error occurred: <detail>", reason InternalError, code 500, one cause with <detail>.
http::Response internal_error(const std::string& detail);

// "GET /api/v1/pods?limit=1 user=\"alice\"" for log lines; the target is cut at a bound.
std::string describe_request(std::string_view method, std::string_view target,
                             std::string_view user);
std::string describe_request(const http::Request& request);

// The answer to `request` whose serving threw `error`, with the log line; never throws.
http::Response internal_error_for(const http::Request& request,
                                  const std::exception_ptr& error) noexcept;

// Runs `serve`; if it throws, answers internal_error_for() instead.
http::Response serve_guarded(const http::Request& request,
                             const std::function<http::Response()>& serve);

// Work that answers no request uses the library's one guard (guard.h).
using apiserver::describe_exception;
using apiserver::run_guarded;

}  // namespace apiserver::server
