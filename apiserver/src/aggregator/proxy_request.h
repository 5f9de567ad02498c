// The request the aggregator sends an extension API server in place of the client's, as
// kube-aggregator's proxy handler builds it: the same method, path, query and body; the
// client's headers but the credentials it authenticated with (Authorization), the
// Impersonate-* headers the impersonation stage consumed, any X-Remote-* header the client
// sent itself, and the hop-by-hop ones; then the identity kube-sandbox authenticated, in the
// request headers extension servers trust when they come with the front-proxy client
// certificate. Pure.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/http.h"
#include "webhook/client.h"

namespace apiserver::aggregator {

// Who the request is from, as the pipeline authenticated (and maybe impersonated) it.
struct Identity {
  std::string user;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

// X-Remote-User, one X-Remote-Group per group, one X-Remote-Extra-<key> per extra value (the
// key escaped as Go's url.PathEscape does), as upstream's transport.SetAuthProxyHeaders.
std::vector<std::pair<std::string, std::string>> identity_headers(const Identity& identity);

// Go's url.PathEscape: bytes other than letters, digits and -._~$&+:=@ become %XX.
std::string path_escape(const std::string& text);

// The request to send for `request` from `identity` (headers as above, X-Forwarded-For with
// the client's address).
webhook::Request proxied_request(const http::Request& request, const Identity& identity);

// The segments of a path ("/apis/g/v" -> apis, g, v), trailing empty ones dropped.
std::vector<std::string> split_path(const std::string& path);

// A watch: ?watch=true (or 1), or the legacy /apis/<g>/<v>/watch/... path.
bool is_watch(const http::Request& request);

// kube-aggregator's proxy errors are Go's http.Error: plain text, the message and a newline.
http::Response proxy_error(int status, const std::string& message);

}  // namespace apiserver::aggregator
