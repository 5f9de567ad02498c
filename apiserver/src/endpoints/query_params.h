// Query parameters decoded as kube-apiserver's parameter codec decodes them (the first value of
// each parameter; integers through Go's strconv), then validated as upstream validates
// ListOptions. Every bad value gets upstream's answer:
//
//   400 strconv.ParseInt: parsing "abc": invalid syntax                 (limit, timeoutSeconds,
//       strconv.ParseInt: parsing "99999999999999999999": value out of range    gracePeriodSeconds)
//   422 ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: ...
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "common/result.h"
#include "errors/result.h"
#include "registry/objects.h"

namespace apiserver::endpoints {

// Go's strconv.ParseInt(text, 10, 64) and ParseUint(text, 10, 64); the error is Go's NumError
// text.
common::Result<int64_t> go_parse_int64(std::string_view text);
common::Result<uint64_t> go_parse_uint64(std::string_view text);

// The ListOptions of a list or watch.
struct ListOptions {
  std::string resource_version;
  std::string resource_version_match;
  std::optional<int64_t> timeout_seconds;
  int64_t limit = 0;
  std::string continue_token;
};

// Decodes and validates the parameters (selectors are the caller's, decoded before). `watch`:
// the request is a watch (validated as upstream validates watches). The error is the answer.
errors::Result<ListOptions> decode_list_options(const http::Request& request, bool watch);

// The storage's parse of a resourceVersion (APIObjectVersioner): "" and "0" are 0. Fails with
// the field error (`resourceVersion: Invalid value: "x": strconv.ParseUint: ...`).
common::Result<uint64_t, registry::FieldError> parse_resource_version(const std::string& text);

// 504 Timeout for a resourceVersion newer than the store's, as the watch cache answers once it
// gave up waiting for it.
http::Response too_large_resource_version(uint64_t requested, int64_t current);

// A watch's duration: timeoutSeconds as upstream turns it into a timer (0 or absent: the default;
// negative: ends at once), bounded so that a deadline never overflows the clock.
int64_t watch_timeout_seconds(const std::optional<int64_t>& timeout_seconds,
                              int64_t default_seconds);

// A boolean query parameter as Go's strconv.ParseBool reads it (kube-apiserver's decoding).
bool query_flag(const http::Request& request, const std::string& name);

}  // namespace apiserver::endpoints
