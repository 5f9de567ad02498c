// /openapi/v2 and /openapi/v3: the OpenAPI documents a v1.32 kube-apiserver serves, computed from
// a registry snapshot (which resources are served, with which verbs and subresources) and the
// embedded schema facts (apiserver/facts/schemas.json). Nothing here touches the network or the
// store, so a CRD that changes the snapshot changes the documents on the next request.
//
// What is served (upstream kube-openapi handler and handler3 behaviour):
// - GET /openapi/v2: a Swagger 2.0 document, as JSON or, for an Accept that prefers
//   application/com.github.proto-openapi.spec.v2@v1.0+protobuf (or its ".v1.0" spelling), as the
//   gnostic openapi.v2.Document protobuf message (openapi_v2_proto.h; client-go's
//   OpenAPISchema() asks for that), with Content-Type
//   application/com.github.proto-openapi.spec.v2.v1.0+protobuf. Both forms carry the JSON's
//   ETag and Vary: Accept. An Accept matching neither gets 406 with an empty body.
// - GET /openapi/v3: the index {"paths": {"api/v1": {"serverRelativeURL":
//   "/openapi/v3/api/v1?hash=<H>"}, ...}}; H is the upper-case hex SHA-512 of the JSON of that
//   document.
// - GET /openapi/v3/<gv>: one OpenAPI 3.0 document per group/version ("api/v1",
//   "apis/apps/v1"), and for "api", "apis", "apis/<group>" and "version". With ?hash=H equal to
//   the current hash: Cache-Control "public, immutable" and Expires one year ahead; with another
//   hash: 301 to the current URL. Unknown <gv>: 404.
// - Every document carries a quoted ETag (the hash); If-None-Match that matches gives 304.
// - No upstream description text anywhere: the only "description" values are the HTTP reason
//   phrases of responses ("OK", "Created", "Accepted", "Unauthorized") that OpenAPI requires.
//
// Thread-safety: serve() may be called from any number of threads at once. Documents are built
// lazily, once per snapshot generation, and shared until the generation changes.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "apiserver/http.h"
#include "apiserver/registry.h"

namespace apiserver::endpoints {

class OpenApi {
 public:
  using Clock = std::function<std::chrono::system_clock::time_point()>;

  // Parses the embedded schema facts once. Throws only if they are broken (a build defect), so
  // construct it at start-up. `clock` only dates the Expires header of hashed v3 documents.
  explicit OpenApi(Clock clock = [] { return std::chrono::system_clock::now(); });

  // The response for /openapi/v2, /openapi/v3 and /openapi/v3/...; std::nullopt for any other
  // path (the caller routes it elsewhere). Never throws on the request path.
  std::optional<http::Response> serve(const http::Request& request,
                                      const registry::Snapshot& snapshot);

  // The documents as served (JSON text), for tests and benchmarks.
  std::string v2_document(const registry::Snapshot& snapshot);
  std::string v3_index(const registry::Snapshot& snapshot);
  // std::nullopt when `gv` ("api/v1", "apis/apps/v1", ...) is not served.
  std::optional<std::string> v3_document(const registry::Snapshot& snapshot, const std::string& gv);

 private:
  struct Document {
    std::string json;
    std::string hash;  // upper-case hex SHA-512 of json, unquoted
  };
  struct ProtoDocument {
    std::string bytes;
    std::string hash;  // of the JSON document it was encoded from
  };
  struct V3Documents {
    std::map<std::string, Document> by_gv;
    Document index;
  };
  // Everything built for one snapshot generation; each part is built on first use.
  struct Cache {
    uint64_t generation = 0;
    std::shared_ptr<const Document> v2;
    std::shared_ptr<const ProtoDocument> v2_proto;
    std::shared_ptr<const V3Documents> v3;
  };

  std::shared_ptr<const Document> v2_for(const registry::Snapshot& snapshot);
  std::shared_ptr<const V3Documents> v3_for(const registry::Snapshot& snapshot);
  // The protobuf form of `doc` (this snapshot's v2 JSON), encoded once per JSON hash.
  std::shared_ptr<const ProtoDocument> v2_proto_for(const registry::Snapshot& snapshot,
                                                    const Document& doc);
  Cache& cache_for_locked(uint64_t generation);

  http::Response serve_v2(const http::Request& request, const registry::Snapshot& snapshot);
  http::Response serve_v3(const http::Request& request, const registry::Snapshot& snapshot);

  Clock clock_;
  // Immutable after construction: each definition of the facts as JSON text, "$ref" spelled for
  // each version.
  std::map<std::string, std::string> definitions_v2_;
  std::map<std::string, std::string> definitions_v3_;
  std::map<std::string, std::vector<std::string>> refs_;  // definition -> definitions it uses
  std::map<std::string, std::string> kind_definitions_;   // "group/version/Kind" -> definition

  std::mutex mu_;  // protects cache_; never held while a document is built
  Cache cache_;
};

}  // namespace apiserver::endpoints
