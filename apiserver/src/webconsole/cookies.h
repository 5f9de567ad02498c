// The web console's cookies and secrets: reading a cookie from a request, comparing secrets in
// constant time, and the Set-Cookie values that sign a browser in and out. Pure.
#pragma once

#include <string>
#include <string_view>

#include "apiserver/http.h"

namespace apiserver::webconsole {

// The value of cookie `name` in the request's Cookie header ("a=1; b=2"), or empty.
std::string cookie(const http::Request& request, const std::string& name);

// True when both are the same non-empty secret; the time taken depends only on their length.
bool same_secret(std::string_view a, std::string_view b);

// HMAC-SHA256 of `message` under `key`, in hex.
std::string hmac_hex(const std::string& key, std::string_view message);

// A Set-Cookie value for the console's cookie `name`: SameSite=Strict on the whole origin,
// HttpOnly when the page's script must not read it, kept `max_age_seconds` (0: removed now).
std::string set_cookie(const std::string& name, const std::string& value, bool http_only,
                       long max_age_seconds);

// The answers' common headers: never cached, no type sniffing, no Referer.
void no_store(http::Response& response);

// A refusal: a Kubernetes Status with this code, reason and message.
http::Response refuse(int code, const char* reason, const std::string& message);

}  // namespace apiserver::webconsole
