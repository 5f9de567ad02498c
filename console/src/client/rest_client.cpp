#include "console/client/rest_client.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "client/https_connection.h"
#include "common/base64.h"

namespace console::client {
namespace {

namespace fs = std::filesystem;
using detail::parse_server;

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The entry named `name` of a kubeconfig list (clusters, users, contexts): its inner map, or an
// undefined node.
YAML::Node named(const YAML::Node& list, const std::string& name, const char* inner) {
  if (list && list.IsSequence()) {
    for (const auto& entry : list) {
      if (entry.IsMap() && entry["name"] && entry["name"].as<std::string>("") == name &&
          entry[inner] && entry[inner].IsMap()) {
        return entry[inner];
      }
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

// A PEM from `<key>-data` (base64) or `<key>` (a file, relative to the kubeconfig).
bool pem_field(const YAML::Node& node, const std::string& key, const fs::path& base,
               std::string& out, std::string& error) {
  if (node[key + "-data"]) {
    auto decoded = common::base64_decode_lenient(node[key + "-data"].as<std::string>(""));
    if (!decoded) {
      error = key + "-data is not valid base64";
      return false;
    }
    out = *decoded;
  } else if (node[key]) {
    fs::path file = node[key].as<std::string>("");
    if (file.is_relative()) {
      file = base / file;
    }
    auto text = read_text(file);
    if (!text) {
      error = key + " " + file.string() + ": cannot be read";
      return false;
    }
    out = *text;
  }
  return true;
}

}  // namespace

std::string default_kubeconfig_path() {
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    std::string list = env;
    return list.substr(0, list.find(':'));
  }
  const char* home = std::getenv("HOME");
  return (fs::path(home != nullptr ? home : ".") / ".kube" / "config").string();
}

std::optional<ClusterAccess> load_kubeconfig(const std::string& path, const std::string& context,
                                             std::string& error) {
  auto text = read_text(path);
  if (!text) {
    error = "kubeconfig " + path + ": cannot be read";
    return std::nullopt;
  }
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    error = "kubeconfig " + path + ": " + e.msg;
    return std::nullopt;
  }
  // yaml-cpp throws when a node has another shape than the kubeconfig format says.
  try {
    ClusterAccess access;
    access.context = context.empty() ? root["current-context"].as<std::string>("") : context;
    if (access.context.empty()) {
      error = "kubeconfig " + path + ": no current-context";
      return std::nullopt;
    }
    YAML::Node ctx = named(root["contexts"], access.context, "context");
    if (!ctx) {
      error = "kubeconfig " + path + ": no context \"" + access.context + "\"";
      return std::nullopt;
    }
    std::string cluster_name = ctx["cluster"].as<std::string>("");
    std::string user_name = ctx["user"].as<std::string>("");
    access.namespace_ = ctx["namespace"].as<std::string>("default");
    YAML::Node cluster = named(root["clusters"], cluster_name, "cluster");
    if (!cluster) {
      error = "kubeconfig " + path + ": no cluster \"" + cluster_name + "\"";
      return std::nullopt;
    }
    fs::path base = fs::path(path).parent_path();
    access.server = cluster["server"].as<std::string>("");
    access.insecure = cluster["insecure-skip-tls-verify"].as<bool>(false);
    if (!pem_field(cluster, "certificate-authority", base, access.ca_pem, error)) {
      error = "kubeconfig " + path + ": " + error;
      return std::nullopt;
    }
    YAML::Node user = named(root["users"], user_name, "user");
    if (user) {
      if (!pem_field(user, "client-certificate", base, access.client_cert_pem, error) ||
          !pem_field(user, "client-key", base, access.client_key_pem, error)) {
        error = "kubeconfig " + path + ": " + error;
        return std::nullopt;
      }
      access.token = user["token"].as<std::string>("");
      if (access.token.empty() && user["tokenFile"]) {
        fs::path file = user["tokenFile"].as<std::string>("");
        auto token = read_text(file.is_relative() ? base / file : file);
        if (!token) {
          error = "kubeconfig " + path + ": tokenFile " + file.string() + ": cannot be read";
          return std::nullopt;
        }
        access.token = token->substr(0, token->find_last_not_of(" \r\n") + 1);
      }
    }
    if (!parse_server(access.server)) {
      error = "kubeconfig " + path + ": server \"" + access.server + "\" is not an https URL";
      return std::nullopt;
    }
    return access;
  } catch (const YAML::Exception& e) {
    error = "kubeconfig " + path + ": " + e.msg;
    return std::nullopt;
  }
}

RestClient::RestClient(ClusterAccess access, ClientOptions options)
    : access_(std::move(access)), options_(std::move(options)) {}

RestClient::~RestClient() = default;

bool RestClient::request(const std::string& method, const std::string& target,
                         const std::string& content_type, const std::string& body, Response& out,
                         std::string& error) {
  Request r;
  r.method = method;
  r.target = target;
  r.content_type = content_type;
  r.body = body;
  return request(r, out, error);
}

bool RestClient::request(const Request& request, Response& out, std::string& error) {
  const auto deadline = detail::HttpsConnection::Clock::now() + options_.timeout;
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool fresh = !connection_;
    if (fresh) {
      connection_ =
          std::make_unique<detail::HttpsConnection>(access_, options_.user_agent, options_.cancel);
      if (!connection_->open(deadline, error)) {
        connection_.reset();
        return false;
      }
    }
    bool reusable = false;
    bool ok =
        connection_->exchange(request, deadline, options_.max_response_bytes, out, reusable, error);
    if (!reusable) {
      connection_.reset();
    }
    if (ok || fresh || request.method == "POST") {
      return ok;
    }
    // A kept-alive connection the server had closed: once more on a new one (not for POST,
    // which may have been acted on).
  }
  return false;
}

}  // namespace console::client
