#include <string>

#include "common/go_quote.h"
#include "webhook/client.h"

namespace apiserver::webhook {

std::string rest_client_error(int status, const std::string& body) {
  switch (status) {
    case 400:
      return "the server rejected our request for an unknown reason";
    case 401:
      return "Unauthorized";
    case 403:
      return "the server has forbidden the request";
    case 404:
      return "the server could not find the requested resource";
    case 500: {
      const std::string shown = body.size() > 2048 ? body.substr(0, 2048) : body;
      return "an error on the server (" + common::go_quote(shown.empty() ? "unknown" : shown) +
             ") has prevented the request from succeeding";
    }
    case 503:
      return "the server is currently unable to handle the request";
    default:
      return "the server responded with the status code " + std::to_string(status) +
             " but did not return more information";
  }
}

}  // namespace apiserver::webhook
