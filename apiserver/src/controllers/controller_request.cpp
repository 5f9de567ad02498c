#include "controllers/controller_request.h"

#include "apiserver/version.h"

namespace apiserver::controllers {

http::Request loopback_request(const std::string& method, const std::string& path,
                               const nlohmann::json& body, const std::string& agent) {
  http::Request request;
  request.method = method;
  request.path = path;
  request.target = path;
  if (!body.is_null()) {
    request.body = body.dump();
    request.headers["Content-Type"] = "application/json";
  }
  request.headers["User-Agent"] = agent;
  return request;
}

http::Request controller_request(const std::string& method, const std::string& path,
                                 const nlohmann::json& body, const std::string& service_account) {
  http::Request request = loopback_request(
      method, path, body, "kube-controller-manager/" + version_info().git_version + " (sandbox)");
  request.user = "system:serviceaccount:kube-system:" + service_account;
  request.groups = {"system:serviceaccounts", "system:serviceaccounts:kube-system",
                    "system:authenticated"};
  request.client_certificate = http::ClientCertificate{
      request.user, {"system:serviceaccounts", "system:serviceaccounts:kube-system"}};
  return request;
}

}  // namespace apiserver::controllers
