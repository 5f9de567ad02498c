// remote_cluster_handler: requests sent on to another cluster's API server.
#include "apiserver/remote_cluster.h"

#include <strings.h>

#include "common/https_url.h"
#include "errors/status.h"
#include "webhook/client.h"

namespace apiserver {
namespace {

// kube-apiserver's longest watch (--min-request-timeout, 1800 s): the cluster ends it first.
constexpr std::chrono::minutes kWatchBound{31};

bool passed_on(const std::string& name) {
  for (const char* wanted : {"Accept", "Content-Type", "User-Agent", "Authorization"}) {
    if (strcasecmp(name.c_str(), wanted) == 0) {
      return true;
    }
  }
  return false;
}

bool is_watch(const http::Request& request) {
  const std::string watch = request.query_value("watch");
  return watch == "1" || watch == "true";
}

http::Response unreachable(const std::string& why) {
  return errors::failure(503, "ServiceUnavailable", why).response();
}

}  // namespace

common::Result<http::Handler> remote_cluster_handler(RemoteCluster cluster) {
  auto url = common::parse_https_url(cluster.server);
  if (!url) {
    return common::Result<http::Handler>::failure(
        "the cluster's server \"" + cluster.server +
        "\" is not an https:// URL; the web console reaches clusters over HTTPS only");
  }
  webhook::Target base;
  base.connect_host = url->host;
  base.connect_port = url->port;
  base.server_name = url->host;
  base.host_header =
      (url->host.find(':') != std::string::npos ? "[" + url->host + "]" : url->host) + ":" +
      url->port;
  base.ca_pem = cluster.ca_pem;
  base.insecure_skip_verify = cluster.insecure_skip_verify;
  std::string prefix = url->target.substr(0, url->target.find('?'));
  while (!prefix.empty() && prefix.back() == '/') {
    prefix.pop_back();
  }
  const std::string origin = "https://" + base.host_header;
  auto shared = std::make_shared<const RemoteCluster>(std::move(cluster));
  return http::Handler([shared, base, prefix, origin](http::Request& request) {
    webhook::Target target = base;
    target.path_and_query = prefix + request.target;
    target.url = origin + target.path_and_query;
    webhook::Request out;
    out.method = request.method;
    out.body = request.body;
    bool has_authorization = false;
    for (const auto& [name, value] : request.headers) {
      if (passed_on(name)) {
        out.headers.emplace_back(name, value);
        has_authorization = has_authorization || strcasecmp(name.c_str(), "Authorization") == 0;
      }
    }
    if (!has_authorization) {
      // The kubeconfig's user: a client certificate, a bearer token, or both.
      target.client_cert_pem = shared->client_cert_pem;
      target.client_key_pem = shared->client_key_pem;
      if (!shared->token.empty()) {
        out.headers.emplace_back("Authorization", "Bearer " + shared->token);
      }
    }
    http::Response response;
    if (is_watch(request)) {
      auto opened = webhook::open_stream(target, out, shared->timeout, kWatchBound,
                                         shared->max_buffered_watch_bytes);
      if (!opened) {
        return unreachable(opened.error());
      }
      response.status = opened->status;
      response.headers = std::move(opened->headers);
      response.stream = std::move(opened->body);
    } else {
      auto answer = webhook::send(target, out, shared->timeout, shared->max_response_bytes);
      if (!answer) {
        return unreachable(answer.error());
      }
      response.status = answer->status;
      response.headers = std::move(answer->headers);
      response.body = std::move(answer->body);
    }
    std::erase_if(response.headers, [](const auto& header) {
      return strcasecmp(header.first.c_str(), "Set-Cookie") == 0;
    });
    return response;
  });
}

}  // namespace apiserver
