// gzip (RFC 1952) for response bodies. kube-apiserver compresses a response when the client
// sends `Accept-Encoding: gzip` and the body is at least 128 KiB (smaller bodies are cheaper to
// send as they are); watch streams are never compressed.
#pragma once

#include <string>
#include <string_view>

namespace apiserver::server {

inline constexpr size_t kGzipThresholdBytes = 128 * 1024;

// True when an Accept-Encoding header value lists gzip with a non-zero quality.
bool accepts_gzip(std::string_view accept_encoding);

// The gzip member holding `data` (deflate at the default level, CRC-32 and size trailer).
std::string gzip(std::string_view data);

}  // namespace apiserver::server
