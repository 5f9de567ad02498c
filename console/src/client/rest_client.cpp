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

// A PEM from `<key>-data` (base64) or `<key>` (a file, relative to the kubeconfig); empty when
// neither is set.
common::Result<std::string> pem_field(const YAML::Node& node, const std::string& key,
                                      const fs::path& base) {
  if (node[key + "-data"]) {
    auto decoded = common::base64_decode_lenient(node[key + "-data"].as<std::string>(""));
    if (!decoded) {
      return common::Result<std::string>::failure(key + "-data is not valid base64");
    }
    return std::move(*decoded);
  } else if (node[key]) {
    fs::path file = node[key].as<std::string>("");
    if (file.is_relative()) {
      file = base / file;
    }
    auto text = read_text(file);
    if (!text) {
      return common::Result<std::string>::failure(key + " " + file.string() + ": cannot be read");
    }
    return std::move(*text);
  }
  return std::string();
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

common::Result<ClusterAccess> load_kubeconfig(const std::string& path, const std::string& context) {
  auto text = read_text(path);
  if (!text) {
    return "kubeconfig " + path + ": cannot be read";
  }
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    return "kubeconfig " + path + ": " + e.msg;
  }
  // yaml-cpp throws when a node has another shape than the kubeconfig format says.
  try {
    ClusterAccess access;
    access.context = context.empty() ? root["current-context"].as<std::string>("") : context;
    if (access.context.empty()) {
      return "kubeconfig " + path + ": no current-context";
    }
    YAML::Node ctx = named(root["contexts"], access.context, "context");
    if (!ctx) {
      return "kubeconfig " + path + ": no context \"" + access.context + "\"";
    }
    std::string cluster_name = ctx["cluster"].as<std::string>("");
    std::string user_name = ctx["user"].as<std::string>("");
    access.namespace_ = ctx["namespace"].as<std::string>("default");
    YAML::Node cluster = named(root["clusters"], cluster_name, "cluster");
    if (!cluster) {
      return "kubeconfig " + path + ": no cluster \"" + cluster_name + "\"";
    }
    fs::path base = fs::path(path).parent_path();
    access.server = cluster["server"].as<std::string>("");
    access.insecure = cluster["insecure-skip-tls-verify"].as<bool>(false);
    auto ca = pem_field(cluster, "certificate-authority", base);
    if (!ca.ok()) {
      return "kubeconfig " + path + ": " + ca.error();
    }
    access.ca_pem = std::move(*ca);
    YAML::Node user = named(root["users"], user_name, "user");
    if (user) {
      auto cert = pem_field(user, "client-certificate", base);
      if (!cert.ok()) {
        return "kubeconfig " + path + ": " + cert.error();
      }
      auto key = pem_field(user, "client-key", base);
      if (!key.ok()) {
        return "kubeconfig " + path + ": " + key.error();
      }
      access.client_cert_pem = std::move(*cert);
      access.client_key_pem = std::move(*key);
      access.token = user["token"].as<std::string>("");
      if (access.token.empty() && user["tokenFile"]) {
        fs::path file = user["tokenFile"].as<std::string>("");
        auto token = read_text(file.is_relative() ? base / file : file);
        if (!token) {
          return "kubeconfig " + path + ": tokenFile " + file.string() + ": cannot be read";
        }
        access.token = token->substr(0, token->find_last_not_of(" \r\n") + 1);
      }
    }
    if (!parse_server(access.server)) {
      return "kubeconfig " + path + ": server \"" + access.server + "\" is not an https URL";
    }
    return access;
  } catch (const YAML::Exception& e) {
    return "kubeconfig " + path + ": " + e.msg;
  }
}

RestClient::RestClient(ClusterAccess access, ClientOptions options)
    : access_(std::move(access)), options_(std::move(options)) {}

RestClient::~RestClient() = default;

common::Result<Response> RestClient::request(const std::string& method, const std::string& target,
                                             const std::string& content_type,
                                             const std::string& body) {
  Request r;
  r.method = method;
  r.target = target;
  r.content_type = content_type;
  r.body = body;
  return request(r);
}

common::Result<Response> RestClient::request(const Request& request) {
  const auto deadline = detail::HttpsConnection::Clock::now() + options_.timeout;
  std::string error;
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool fresh = !connection_;
    if (fresh) {
      connection_ =
          std::make_unique<detail::HttpsConnection>(access_, options_.user_agent, options_.cancel);
      if (auto error = connection_->open(deadline)) {
        connection_.reset();
        return std::move(*error);
      }
    }
    auto exchanged = connection_->exchange(request, deadline, options_.max_response_bytes);
    if (!exchanged.ok() || !exchanged->reusable) {
      connection_.reset();
    }
    if (exchanged.ok()) {
      return std::move(exchanged->response);
    }
    if (fresh || request.method == "POST") {
      return exchanged.error();
    }
    // A kept-alive connection the server had closed: once more on a new one (not for POST,
    // which may have been acted on).
    error = exchanged.error();
  }
  return error;  // not reached: the second attempt is on a fresh connection
}

}  // namespace console::client
