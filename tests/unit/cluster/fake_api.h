// A scripted API for the controllers' request logic: a Client whose requests land here, each
// recorded, each answered from a table of "METHOD path" answers (a GET nobody scripted answers
// 404 NotFound, anything else 500).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/api_client.h"

namespace cluster::testing {

using nlohmann::json;

class FakeApi {
 public:
  struct Call {
    std::string method;
    std::string path;
    std::string content_type;
    json body;
  };

  // Answers `method` on `path` with `status` and `body` (an object, or a Status for an error).
  void answer(const std::string& method, const std::string& path, int status, json body) {
    answers_[method + " " + path] = {status, std::move(body)};
  }
  // An error answer, as a Status.
  void fail(const std::string& method, const std::string& path, int status,
            const std::string& reason, const std::string& message) {
    answer(method, path, status,
           {{"kind", "Status"},
            {"apiVersion", "v1"},
            {"status", "Failure"},
            {"reason", reason},
            {"message", message},
            {"code", status}});
  }

  Client client() {
    return Client([this](apiserver::http::Request& request) { return handle(request); },
                  Identity{"system:serviceaccount:kube-system:test-controller", {}}, "test");
  }

  const std::vector<Call>& calls() const { return calls_; }
  // The calls of one method, in order.
  std::vector<Call> calls(const std::string& method) const {
    std::vector<Call> out;
    for (const Call& c : calls_) {
      if (c.method == method) {
        out.push_back(c);
      }
    }
    return out;
  }

 private:
  apiserver::http::Response handle(apiserver::http::Request& request) {
    json body = request.body.empty() ? json() : json::parse(request.body, nullptr, false);
    calls_.push_back({request.method, request.path, request.header("Content-Type"), body});
    apiserver::http::Response response;
    auto it = answers_.find(request.method + " " + request.path);
    if (it != answers_.end()) {
      response.status = it->second.first;
      response.body = it->second.second.dump();
    } else if (request.method == "GET") {
      response.status = 404;
      response.body =
          json{{"kind", "Status"}, {"reason", "NotFound"}, {"message", "not found"}}.dump();
    } else {
      response.status = 500;
      response.body = json{{"kind", "Status"},
                           {"reason", "InternalError"},
                           {"message", "unscripted " + request.method + " " + request.path}}
                          .dump();
    }
    return response;
  }

  std::map<std::string, std::pair<int, json>> answers_;
  std::vector<Call> calls_;
};

}  // namespace cluster::testing
