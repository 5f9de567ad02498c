// OpenApi: the schema facts read at construction, the documents assembled per snapshot
// generation and cached, and the answers to /openapi/v2 and /openapi/v3. The model, its JSON and
// the HTTP details are in openapi_model, openapi_json and openapi_http.
#include "endpoints/openapi.h"

#include <openssl/evp.h>

#include <exception>
#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/facts.h"
#include "apiserver/version.h"
#include "endpoints/openapi_http.h"
#include "endpoints/openapi_json.h"
#include "endpoints/openapi_model.h"
#include "endpoints/openapi_v2_proto.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;
using openapi_detail::accepts_json;
using openapi_detail::build_model;
using openapi_detail::collect_refs;
using openapi_detail::content;
using openapi_detail::convert_schema;
using openapi_detail::Flavor;
using openapi_detail::http_date;
using openapi_detail::kV2ProtobufContentType;
using openapi_detail::Model;
using openapi_detail::negotiate_v2;
using openapi_detail::not_acceptable;
using openapi_detail::not_found;
using openapi_detail::put_definitions;
using openapi_detail::put_paths;
using openapi_detail::V2Form;

constexpr const char* kV2Path = "/openapi/v2";
constexpr const char* kV3Path = "/openapi/v3";

std::string sha512_hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha512(), nullptr);
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xf];
  }
  return out;
}

json info_json() {
  return {{"title", "Kubernetes"}, {"version", version_info().git_version}};
}

constexpr const char* kSecurity = "[{\"BearerToken\":[]}]";
constexpr const char* kBearerToken =
    "{\"BearerToken\":{\"in\":\"header\",\"name\":\"authorization\",\"type\":\"apiKey\"}}";

}  // namespace

// -----------------------------------------------------------------------------------------------

OpenApi::OpenApi(Clock clock) : clock_(std::move(clock)) {
  const json facts = json::parse(facts::schemas_json());
  const json& definitions = facts.at("definitions");
  for (auto it = definitions.begin(); it != definitions.end(); ++it) {
    definitions_v2_[it.key()] = convert_schema(Flavor::V2, it.value()).dump();
    definitions_v3_[it.key()] = convert_schema(Flavor::V3, it.value()).dump();
    std::set<std::string> refs;
    collect_refs(it.value(), refs);
    refs_[it.key()] = std::vector<std::string>(refs.begin(), refs.end());
    auto gvks = it.value().find("x-kubernetes-group-version-kind");
    if (gvks != it.value().end() && gvks->is_array()) {
      for (const auto& g : *gvks) {
        std::string key =
            g.value("group", "") + "/" + g.value("version", "") + "/" + g.value("kind", "");
        kind_definitions_.emplace(key, it.key());  // the first definition naming a kind wins
      }
    }
  }
}

OpenApi::Cache& OpenApi::cache_for_locked(uint64_t generation) {
  if (cache_.generation != generation || (!cache_.v2 && !cache_.v3)) {
    cache_ = Cache{};
    cache_.generation = generation;
  }
  return cache_;
}

std::shared_ptr<const OpenApi::Document> OpenApi::v2_for(const registry::Snapshot& snapshot) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Cache& c = cache_for_locked(snapshot.generation());
    if (c.v2) {
      return c.v2;
    }
  }
  Model model = build_model(snapshot, kind_definitions_);
  std::vector<std::string> all;
  all.reserve(model.paths.size());
  for (const auto& [path, item] : model.paths) {
    (void)item;
    all.push_back(path);
  }
  auto built = std::make_shared<Document>();
  std::string& out = built->json;
  out.reserve(1 << 20);
  out += "{\"definitions\":";
  put_definitions(out, Flavor::V2, model, all, definitions_v2_, refs_);
  out += ",\"info\":";
  out += info_json().dump();
  out += ",\"paths\":";
  put_paths(out, Flavor::V2, model, all);
  out += ",\"security\":";
  out += kSecurity;
  out += ",\"securityDefinitions\":";
  out += kBearerToken;
  out += ",\"swagger\":\"2.0\"}";
  built->hash = sha512_hex(built->json);

  std::lock_guard<std::mutex> lock(mu_);
  Cache& c = cache_for_locked(snapshot.generation());
  if (!c.v2) {
    c.v2 = std::move(built);
  }
  return c.v2;
}

std::shared_ptr<const OpenApi::V3Documents> OpenApi::v3_for(const registry::Snapshot& snapshot) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Cache& c = cache_for_locked(snapshot.generation());
    if (c.v3) {
      return c.v3;
    }
  }
  Model model = build_model(snapshot, kind_definitions_);
  auto built = std::make_shared<V3Documents>();
  json index_paths = json::object();
  const std::string info = info_json().dump();
  for (const auto& [key, paths] : model.documents) {
    Document d;
    std::string& out = d.json;
    out += "{\"components\":{\"schemas\":";
    put_definitions(out, Flavor::V3, model, paths, definitions_v3_, refs_);
    out += ",\"securitySchemes\":";
    out += kBearerToken;
    out += "},\"info\":";
    out += info;
    out += ",\"openapi\":\"3.0.0\",\"paths\":";
    put_paths(out, Flavor::V3, model, paths);
    out += ",\"security\":";
    out += kSecurity;
    out += '}';
    d.hash = sha512_hex(d.json);
    index_paths[key] = {
        {"serverRelativeURL", std::string(kV3Path) + "/" + key + "?hash=" + d.hash}};
    built->by_gv.emplace(key, std::move(d));
  }
  built->index.json = json{{"paths", std::move(index_paths)}}.dump();
  built->index.hash = sha512_hex(built->index.json);

  std::lock_guard<std::mutex> lock(mu_);
  Cache& c = cache_for_locked(snapshot.generation());
  if (!c.v3) {
    c.v3 = std::move(built);
  }
  return c.v3;
}

std::shared_ptr<const OpenApi::ProtoDocument> OpenApi::v2_proto_for(
    const registry::Snapshot& snapshot, const Document& doc) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Cache& c = cache_for_locked(snapshot.generation());
    if (c.v2_proto && c.v2_proto->hash == doc.hash) {
      return c.v2_proto;
    }
  }
  auto built = std::make_shared<ProtoDocument>();
  built->hash = doc.hash;
  built->bytes = encode_openapi_v2(json::parse(doc.json));

  std::lock_guard<std::mutex> lock(mu_);
  Cache& c = cache_for_locked(snapshot.generation());
  if (!c.v2_proto || c.v2_proto->hash != built->hash) {
    c.v2_proto = std::move(built);
  }
  return c.v2_proto;
}

std::string OpenApi::v2_document(const registry::Snapshot& snapshot) {
  return v2_for(snapshot)->json;
}

std::string OpenApi::v3_index(const registry::Snapshot& snapshot) {
  return v3_for(snapshot)->index.json;
}

std::optional<std::string> OpenApi::v3_document(const registry::Snapshot& snapshot,
                                                const std::string& gv) {
  auto docs = v3_for(snapshot);
  auto it = docs->by_gv.find(gv);
  if (it == docs->by_gv.end()) {
    return std::nullopt;
  }
  return it->second.json;
}

std::optional<http::Response> OpenApi::serve(const http::Request& request,
                                             const registry::Snapshot& snapshot) {
  const std::string v3_prefix = std::string(kV3Path) + "/";
  try {
    if (request.path == kV2Path) {
      return serve_v2(request, snapshot);
    }
    if (request.path == kV3Path || request.path.rfind(v3_prefix, 0) == 0) {
      return serve_v3(request, snapshot);
    }
  } catch (const std::exception&) {
    http::Response r;  // building failed (out of memory): upstream answers 503
    r.status = 503;
    return r;
  }
  return std::nullopt;
}

http::Response OpenApi::serve_v2(const http::Request& request, const registry::Snapshot& snapshot) {
  const auto form = negotiate_v2(request.header("Accept"));
  if (!form) {
    return not_acceptable();
  }
  auto doc = v2_for(snapshot);
  http::Response r;
  r.set_header("Vary", "Accept");
  if (*form == V2Form::Protobuf) {
    // Same ETag as the JSON, as upstream: Vary: Accept keeps caches from mixing the two.
    auto proto = v2_proto_for(snapshot, *doc);
    return content(request, proto->bytes, doc->hash, std::move(r), kV2ProtobufContentType);
  }
  return content(request, doc->json, doc->hash, std::move(r));
}

http::Response OpenApi::serve_v3(const http::Request& request, const registry::Snapshot& snapshot) {
  auto docs = v3_for(snapshot);
  if (request.path == kV3Path) {
    return content(request, docs->index.json, docs->index.hash, http::Response{});
  }
  const std::string gv = request.path.substr(std::string(kV3Path).size() + 1);
  auto it = docs->by_gv.find(gv);
  if (it == docs->by_gv.end()) {
    return not_found();
  }
  if (!accepts_json(request.header("Accept"))) {
    return not_acceptable();
  }
  http::Response r;
  r.set_header("Vary", "Accept");
  const std::string hash = request.query_value("hash");
  if (!hash.empty()) {
    if (hash != it->second.hash) {
      const std::string location = std::string(kV3Path) + "/" + gv + "?hash=" + it->second.hash;
      r.status = 301;
      r.set_header("Location", location);
      r.set_header("Content-Type", "text/html; charset=utf-8");
      if (request.method == "GET" || request.method == "HEAD") {
        r.body = "<a href=\"" + location + "\">Moved Permanently</a>.\n\n";
      }
      return r;
    }
    r.set_header("Cache-Control", "public, immutable");
    r.set_header("Expires", http_date(clock_() + std::chrono::hours(24 * 365)));
  }
  return content(request, it->second.json, it->second.hash, std::move(r));
}

}  // namespace apiserver::endpoints
