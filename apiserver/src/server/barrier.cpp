#include "server/barrier.h"

#include "apiserver/log.h"
#include "errors/status.h"

namespace apiserver::server {
namespace {

// A log line names the request, not all of it: targets may be as long as the header limit.
constexpr size_t kMaxLoggedTarget = 512;

}  // namespace

http::Response internal_error(const std::string& detail) {
  return errors::internal_error(detail).response();
}

std::string describe_request(std::string_view method, std::string_view target,
                             std::string_view user) {
  std::string out(method);
  out += ' ';
  if (target.size() > kMaxLoggedTarget) {
    out += target.substr(0, kMaxLoggedTarget);
    out += "...";
  } else {
    out += target;
  }
  if (!user.empty()) {
    out += " user=\"";
    out += user;
    out += '"';
  }
  return out;
}

std::string describe_request(const http::Request& request) {
  return describe_request(request.method, request.target.empty() ? request.path : request.target,
                          request.user);
}

http::Response internal_error_for(const http::Request& request,
                                  const std::exception_ptr& error) noexcept {
  try {
    std::string detail = describe_exception(error);
    log::error("internal error serving " + describe_request(request) + ": " + detail);
    return internal_error(detail);
  } catch (...) {
    // Out of memory while reporting: a bare 500 allocates nothing.
    http::Response r;
    r.status = 500;
    return r;
  }
}

http::Response serve_guarded(const http::Request& request,
                             const std::function<http::Response()>& serve) {
  try {
    return serve();
  } catch (...) {
    return internal_error_for(request, std::current_exception());
  }
}

}  // namespace apiserver::server
