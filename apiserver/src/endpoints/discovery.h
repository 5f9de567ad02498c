// API discovery as kube-apiserver v1.32 serves it, computed from a registry snapshot: no network,
// no store, no state between calls.
//
//   GET /api                 APIVersions, or the aggregated document of the core group
//   GET /apis                APIGroupList, or the aggregated document of every other group
//   GET /apis/<g>            APIGroup
//   GET /api/v1, /apis/<g>/<v>   APIResourceList (subresources listed as "pods/status")
//
// The aggregated document (apidiscovery.k8s.io/v2, or v2beta1 when a client asks for that first)
// is served at /api and /apis only, and only when the Accept header names it; clients such as
// kubectl 1.32 send "<v2>,<v2beta1>,application/json" and read the answer's Content-Type to learn
// which shape they got.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "apiserver/http.h"
#include "apiserver/registry.h"

namespace apiserver::endpoints {

// Answers a discovery request, or returns std::nullopt when `request.path` is not a discovery
// path (anything below /api/<v>/ or /apis/<g>/<v>/, or outside /api and /apis) so that the caller
// routes on. `server_address` ("host:port") fills APIVersions.serverAddressByClientCIDRs.
//
// The response is final, already encoded: JSON or YAML as the Accept header allows (406 when it
// allows neither), the aggregated document with its own media type
// ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"), ETag, Vary and
// Cache-Control headers, and 304 with no body when If-None-Match equals the ETag. The caller must
// not re-encode it. Errors are Status bodies: 404 NotFound for a group or version that is not
// served, 405 MethodNotAllowed for anything but GET on a discovery path.
//
// Pure and thread-safe: everything comes from `snapshot`, which must outlive the call only.
std::optional<http::Response> serve_discovery(const http::Request& request,
                                              const registry::Snapshot& snapshot,
                                              const std::string& server_address);

// The ETag of an aggregated discovery document with these items (upstream's: quoted uppercase hex
// of SHA-512 over {"metadata":{},"items":[...]}), for documents others extend (the aggregator).
std::string discovery_etag(const nlohmann::ordered_json& items);

// kube-apiserver's storageVersionHash of a storage group/version/kind: base64 of the first 8
// bytes of SHA-256 over "<group>/<version>/<kind>" ("/v1/Pod" -> "xPOwRZ+Yhw8=").
std::string storage_version_hash(const std::string& group, const std::string& version,
                                 const std::string& kind);

}  // namespace apiserver::endpoints
