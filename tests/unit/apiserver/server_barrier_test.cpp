// The barrier: an exception that escapes request code becomes kube-apiserver's 500 InternalError
// Status and one log line naming the request.
#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

#include "apiserver/log.h"
#include "server/barrier.h"

namespace {

// Captures the log while it lives.
struct LogCapture {
  std::ostringstream lines;
  LogCapture() { apiserver::log::set_sink(&lines); }
  ~LogCapture() { apiserver::log::set_sink(nullptr); }
};

apiserver::http::Request request_of(const std::string& user) {
  apiserver::http::Request request;
  request.method = "POST";
  request.target = "/api/v1/namespaces/default/configmaps?dryRun=All";
  request.path = "/api/v1/namespaces/default/configmaps";
  request.user = user;
  return request;
}

}  // namespace

TEST_CASE("an internal error is the Status errors.NewInternalError makes", "[barrier]") {
  auto response = apiserver::server::internal_error("boom");
  CHECK(response.status == 500);
  CHECK(response.body == R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                         R"("message":"Internal error occurred: boom","reason":"InternalError",)"
                         R"("details":{"causes":[{"message":"boom"}]},"code":500})");
  // Bytes that are not UTF-8 do not make the answer itself fail.
  CHECK(apiserver::server::internal_error("bad \xff byte").status == 500);
}

TEST_CASE("a handler that throws a std::exception gets a 500 and one log line", "[barrier]") {
  LogCapture log;
  auto request = request_of("alice");
  auto response = apiserver::server::serve_guarded(
      request, []() -> apiserver::http::Response { throw std::runtime_error("stoi"); });
  CHECK(response.status == 500);
  CHECK(response.body.find(R"("message":"Internal error occurred: stoi")") != std::string::npos);
  const std::string text = log.lines.str();
  CHECK(text.find("internal error serving POST "
                  "/api/v1/namespaces/default/configmaps?dryRun=All user=\"alice\": stoi\n") !=
        std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
}

TEST_CASE("a handler that throws something else gets a 500 too", "[barrier]") {
  LogCapture log;
  auto request = request_of("");
  auto response =
      apiserver::server::serve_guarded(request, []() -> apiserver::http::Response { throw 42; });
  CHECK(response.status == 500);
  CHECK(response.body.find(R"("message":"Internal error occurred: unknown exception")") !=
        std::string::npos);
  CHECK(log.lines.str().find("internal error serving POST "
                             "/api/v1/namespaces/default/configmaps?dryRun=All: unknown "
                             "exception\n") != std::string::npos);
}

TEST_CASE("a handler that does not throw is answered as it answers", "[barrier]") {
  auto request = request_of("alice");
  auto response = apiserver::server::serve_guarded(request, [] {
    apiserver::http::Response r;
    r.status = 201;
    r.body = "made";
    return r;
  });
  CHECK(response.status == 201);
  CHECK(response.body == "made");
}

TEST_CASE("guarded work that throws is logged and reported, not propagated", "[barrier]") {
  LogCapture log;
  CHECK(apiserver::server::run_guarded("the namespace controller", [] {}));
  CHECK_FALSE(apiserver::server::run_guarded("the namespace controller",
                                             [] { throw std::logic_error("queue broken"); }));
  CHECK(log.lines.str().find("internal error in the namespace controller: queue broken\n") !=
        std::string::npos);
}

TEST_CASE("a logged request target is cut to a bounded length", "[barrier]") {
  std::string target = "/" + std::string(10000, 'a');
  std::string line = apiserver::server::describe_request("GET", target, "");
  CHECK(line.size() < 600);
  CHECK(line.substr(line.size() - 3) == "...");
}
