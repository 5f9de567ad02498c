// HTTP for the OpenAPI endpoints: content negotiation by Accept, the ETag and 304 of a document,
// and the error answers.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "apiserver/http.h"

namespace apiserver::endpoints::openapi_detail {

// The protobuf form of /openapi/v2 is asked for by either subtype (client-go sends the first);
// the answer always names the second, as upstream's does.
inline constexpr const char* kV2ProtobufSubtypeDeprecated =
    "com.github.proto-openapi.spec.v2@v1.0+protobuf";
inline constexpr const char* kV2ProtobufSubtype = "com.github.proto-openapi.spec.v2.v1.0+protobuf";
inline constexpr const char* kV2ProtobufContentType =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

// Whether the client accepts JSON (the /openapi/v3 documents exist only as JSON).
bool accepts_json(const std::string& accept);

enum class V2Form { Json, Protobuf };

// The form of /openapi/v2 to answer with; nullopt: nothing acceptable (406).
std::optional<V2Form> negotiate_v2(const std::string& accept);

http::Response not_acceptable();
http::Response not_found();

// `body` with its ETag, or 304 (see openapi_http.cpp).
http::Response content(const http::Request& request, const std::string& body,
                       const std::string& hash, http::Response r,
                       const char* content_type = "application/json");

// `t` as an HTTP date (Expires).
std::string http_date(std::chrono::system_clock::time_point t);

}  // namespace apiserver::endpoints::openapi_detail
