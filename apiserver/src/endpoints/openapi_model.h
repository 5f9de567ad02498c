// The operation model of the OpenAPI documents: one list of paths built from the snapshot, written
// out as Swagger 2.0 or OpenAPI 3.0 (openapi_json.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/registry.h"

namespace apiserver::endpoints::openapi_detail {

using nlohmann::json;

struct Param {
  std::string name;
  std::string in;    // "path", "query" or "body"
  std::string type;  // for path and query parameters
  bool required = false;
  std::string body;  // definition name of a body parameter

  bool operator==(const Param& o) const {
    return name == o.name && in == o.in && type == o.type && required == o.required &&
           body == o.body;
  }
  bool operator<(const Param& o) const {
    return std::tie(name, in, type, required, body) <
           std::tie(o.name, o.in, o.type, o.required, o.body);
  }
};

struct Reply {
  std::string code;
  std::string ref;  // definition name; empty: a plain string
};

using Strings = std::vector<std::string>;

const Strings& plain_consumes();
const Strings& object_produces();

struct Op {
  std::string method;  // lower case: get, put, post, delete, patch, head, options
  std::string id;
  std::string tag;
  std::string action;  // x-kubernetes-action; empty for discovery operations
  std::optional<registry::GroupVersionKind> gvk;
  std::vector<Param> params;
  const Strings* consumes = &plain_consumes();
  const Strings* produces = &object_produces();
  std::vector<Reply> replies;
};

struct PathItem {
  std::vector<Op> ops;
};

struct Model {
  std::map<std::string, PathItem> paths;
  // Document key ("api/v1", "apis/apps/v1", "api", "apis", "apis/apps", "version") -> its paths.
  std::map<std::string, std::vector<std::string>> documents;
  // Definitions the facts lack (kinds added at run time): generated, bare "$ref" spelling.
  std::map<std::string, json> extra_definitions;
};

// The paths, documents and generated definitions of `snapshot`; `kind_definitions` maps
// "group/version/Kind" to the facts' definition of that kind.
Model build_model(const registry::Snapshot& snapshot,
                  const std::map<std::string, std::string>& kind_definitions);

}  // namespace apiserver::endpoints::openapi_detail
