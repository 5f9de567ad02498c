// The fuzz input of the request-shaped targets: an HTTP/1.1 request head in text, then the body,
// so that seeds are written by hand and mutations stay close to what a client could send:
//
//   PATCH /apis/apps/v1/namespaces/default/deployments/web?fieldManager=x
//   Content-Type: application/merge-patch+json
//
//   {"spec":{"replicas":3}}
//
// The first line is METHOD, one space, the target (path and query, as sent). Header lines are
// `Name: value` (repeated names are joined with ", " as the HTTPS server does) up to the first
// empty line; everything after it is the body. Lines end with "\n" or "\r\n". The path and query
// are decoded as the HTTPS server decodes them.
//
// Heads that the HTTPS server's parser (Beast) refuses never reach the pipeline, so they are
// refused here too (nullopt): a method or header name that is not an RFC 7230 token, a target
// that is empty or holds a control character or a space, a header value with a control character
// other than tab.
#pragma once

#include <optional>
#include <string_view>

#include "apiserver/http.h"

namespace fuzz {

std::optional<apiserver::http::Request> parse_framed_request(std::string_view input);

// `target` split into the request's path and query, as the HTTPS server does.
void set_target(apiserver::http::Request& request, std::string target);

}  // namespace fuzz
