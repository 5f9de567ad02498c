#include "endpoints/snapshots.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "apiserver/log.h"
#include "errors/status.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

constexpr const char* kRoot = "/admin/snapshots";
constexpr const char* kAdminGroup = "system:masters";

http::Response json_response(int code, const json& body) {
  http::Response response;
  response.status = code;
  response.set_header("Content-Type", "application/json");
  response.body = body.dump();
  return response;
}

// A Status whose details name the snapshot, as kube-apiserver's NotFound does for an object.
http::Response status_for(int code, const std::string& reason, const std::string& message,
                          const std::string& name) {
  return errors::failure(code, reason, message, errors::object_details(name, "", "snapshots"))
      .response();
}

http::Response failure(const snapshots::Error& error, const std::string& name) {
  switch (error.kind) {
    case snapshots::ErrorKind::BadName:
      return status_for(400, "BadRequest", error.message, name);
    case snapshots::ErrorKind::NotFound:
      return status_for(404, "NotFound", error.message, name);
    default:
      return status_for(500, "InternalError", "Internal error occurred: " + error.message, name);
  }
}

// kube-apiserver's verb words for a non-resource path.
std::string verb_of(const std::string& method) {
  std::string verb = method;
  std::transform(verb.begin(), verb.end(), verb.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return verb == "head" ? "get" : verb;
}

http::Response method_not_allowed() {
  return errors::method_not_routed().response();
}

}  // namespace

SnapshotEndpoint::SnapshotEndpoint(store::Store& store, std::filesystem::path dir, Restore restore,
                                   std::string refusal)
    : store_(store),
      dir_(std::move(dir)),
      restore_(std::move(restore)),
      refusal_(std::move(refusal)) {}

bool SnapshotEndpoint::handles(const std::string& path) {
  std::string root = kRoot;
  return path == root || path.rfind(root + "/", 0) == 0;
}

http::Response SnapshotEndpoint::serve(const http::Request& request) {
  if (std::find(request.groups.begin(), request.groups.end(), kAdminGroup) ==
      request.groups.end()) {
    return errors::failure(403, "Forbidden",
                           "forbidden: User \"" + request.user + "\" cannot " +
                               verb_of(request.method) + " path \"" + request.path + "\"",
                           errors::Details{})
        .response();
  }
  if (!refusal_.empty()) {
    return errors::failure(400, "BadRequest", refusal_, errors::Details{}).response();
  }
  if (dir_.empty()) {
    return errors::no_route().response();
  }
  // What follows the root: "", "NAME" or "NAME/restore".
  std::string rest = request.path.substr(std::string(kRoot).size());
  if (!rest.empty() && rest.front() == '/') {
    rest.erase(0, 1);
  }
  if (!rest.empty() && rest.back() == '/') {
    rest.pop_back();
  }
  const std::string& method = request.method;
  if (rest.empty()) {
    if (method != "GET" && method != "HEAD") {
      return method_not_allowed();
    }
    std::vector<snapshots::Info> infos;
    if (auto error = snapshots::list(dir_, infos)) {
      return failure(error, "");
    }
    return json_response(200, snapshots::to_json(infos));
  }
  std::string name = rest;
  bool restore = false;
  if (auto slash = rest.find('/'); slash != std::string::npos) {
    name = rest.substr(0, slash);
    if (rest.substr(slash + 1) != "restore") {
      return errors::no_route().response();
    }
    restore = true;
  }
  if (!snapshots::valid_name(name)) {
    return status_for(400, "BadRequest", snapshots::invalid_name_message(name), name);
  }
  if (restore) {
    if (method != "POST") {
      return method_not_allowed();
    }
    snapshots::Restored restored;
    if (auto error = restore_(name, restored)) {
      return failure(error, name);
    }
    return json_response(200, snapshots::to_json(restored));
  }
  snapshots::Info info;
  if (method == "GET" || method == "HEAD") {
    if (auto error = snapshots::find(dir_, name, info)) {
      return failure(error, name);
    }
    return json_response(200, snapshots::to_json(info));
  }
  if (method == "POST") {
    bool existed = false;
    if (auto error = snapshots::save(store_, dir_, name, info, existed)) {
      return failure(error, name);
    }
    log::info(0, "saved snapshot \"" + name + "\" at revision " + std::to_string(info.revision) +
                     " (" + std::to_string(info.size_bytes) + " bytes)");
    return json_response(existed ? 200 : 201, snapshots::to_json(info));
  }
  if (method == "DELETE") {
    if (auto error = snapshots::remove(dir_, name, info)) {
      return failure(error, name);
    }
    return json_response(200, snapshots::to_json(info));
  }
  return method_not_allowed();
}

}  // namespace apiserver::endpoints
