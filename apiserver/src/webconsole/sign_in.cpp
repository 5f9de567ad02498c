// WebConsole: signing in (by the console's login token in the URL, or by a user's bearer token
// posted from the page) and signing out.
#include <nlohmann/json.hpp>

#include "apiserver/web_console.h"
#include "errors/status.h"
#include "webconsole/cookies.h"
#include "webconsole/login_throttle.h"
#include "webconsole/sessions.h"

namespace apiserver {
namespace {

using webconsole::no_store;
using webconsole::refuse;

// A cookie kept for a month: a bookmark keeps working across browser restarts.
constexpr long kCookieMaxAgeSeconds = 2592000;
// A bearer token is a few kilobytes at most (a service account's JWT is about one).
constexpr std::size_t kMaxSignInBody = 16 * 1024;

constexpr const char* kSelfSubjectReviews = "/apis/authentication.k8s.io/v1/selfsubjectreviews";

http::Response success(const std::string& message) {
  errors::Status status;
  status.code = 200;
  status.status = "Success";
  status.message = message;
  return status.response();
}

// kube-apiserver's answer when a client is over its limit: 429 with Retry-After.
http::Response too_many(std::chrono::seconds wait) {
  errors::Details details;
  details.retry_after_seconds = static_cast<int>(wait.count());
  http::Response response =
      errors::failure(429, "TooManyRequests", "Too many requests, please try again later.", details)
          .response();
  response.set_header("Retry-After", std::to_string(wait.count()));
  return response;
}

// The token of a sign-in body {"token": "..."}; empty when the body is not that.
std::string posted_token(const std::string& body) {
  if (body.size() > kMaxSignInBody) {
    return {};
  }
  auto doc = nlohmann::json::parse(body, nullptr, false);
  if (!doc.is_object()) {
    return {};
  }
  auto token = doc.find("token");
  if (token == doc.end() || !token->is_string()) {
    return {};
  }
  std::string text = token->get<std::string>();
  if (text.find_first_of(" \t\r\n") != std::string::npos) {
    return {};
  }
  return text;
}

// The user name in a SelfSubjectReview answer, or empty.
std::string reviewed_username(const std::string& body) {
  auto doc = nlohmann::json::parse(body, nullptr, false);
  if (!doc.is_object()) {
    return {};
  }
  auto status = doc.find("status");
  if (status == doc.end() || !status->is_object()) {
    return {};
  }
  auto user = status->find("userInfo");
  if (user == status->end() || !user->is_object()) {
    return {};
  }
  auto name = user->find("username");
  return name != user->end() && name->is_string() ? name->get<std::string>() : std::string();
}

}  // namespace

http::Response WebConsole::signed_in(const std::string& session, const std::string& csrf,
                                     http::Response response) const {
  response.headers.emplace_back(
      "Set-Cookie",
      webconsole::set_cookie(cookie_name("session"), session, true, kCookieMaxAgeSeconds));
  response.headers.emplace_back(
      "Set-Cookie", webconsole::set_cookie(cookie_name("csrf"), csrf, false, kCookieMaxAgeSeconds));
  no_store(response);
  return response;
}

http::Response WebConsole::sign_in_by_url(const http::Request& request) const {
  const auto now = std::chrono::steady_clock::now();
  if (request.method != "GET") {
    return errors::method_not_routed().response();
  }
  if (auto wait = throttle_->wait(now); wait.count() > 0) {
    return too_many(wait);
  }
  if (!webconsole::same_secret(request.query_value("token"), options_.login_token)) {
    throttle_->failed(now);
    return refuse(401, "Unauthorized",
                  "Unauthorized: the login token is missing or wrong; open the URL kube-sandbox "
                  "printed, or sign in with a bearer token on the console's page");
  }
  http::Response response;
  response.status = 303;
  // The token leaves the address bar and the history: the next view is plain /.
  response.set_header("Location", "/");
  return signed_in(session_value_, csrf_value_, std::move(response));
}

http::Response WebConsole::sign_in_by_token(const http::Request& request) const {
  const auto now = std::chrono::steady_clock::now();
  // Only the console's own page signs in this way (a form on another site cannot log the
  // browser in as someone else): fetch() always sends Origin on a POST, and origin_allowed()
  // has checked it.
  if (request.header("Origin").empty()) {
    return refuse(403, "Forbidden",
                  "the web console signs in by token only from its own page (no Origin header)");
  }
  if (auto wait = throttle_->wait(now); wait.count() > 0) {
    return too_many(wait);
  }
  const std::string token = posted_token(request.body);
  if (token.empty()) {
    return errors::bad_request("the sign-in wants a JSON object {\"token\": \"<bearer token>\"}")
        .response();
  }
  if (webconsole::same_secret(token, options_.login_token)) {
    return signed_in(session_value_, csrf_value_, success("signed in with the login token"));
  }
  // Who is it? The API server answers for the token as for any client of it.
  http::Request review;
  review.method = "POST";
  review.path = kSelfSubjectReviews;
  review.target = kSelfSubjectReviews;
  review.remote_address = request.remote_address;
  review.headers["Host"] = request.header("Host");
  review.headers["Accept"] = "application/json";
  review.headers["Content-Type"] = "application/json";
  review.headers["User-Agent"] = "kube-sandbox-web-console";
  review.headers["Authorization"] = "Bearer " + token;
  review.body = R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})";
  http::Response answer = api_(review);
  std::string username;
  if (answer.status == 201 || answer.status == 200) {
    username = reviewed_username(answer.body);
  } else if (answer.status == 401) {
    throttle_->failed(now);
    no_store(answer);
    return answer;
  } else if (answer.status != 403) {
    // Authenticated but not allowed to ask (403) still signs in; anything else is the API's
    // answer to show.
    no_store(answer);
    return answer;
  }
  webconsole::Session session{token, username, webconsole::random_secret()};
  const std::string csrf = session.csrf;
  const std::string id = sessions_->open(std::move(session), now);
  return signed_in(
      id, csrf,
      success(username.empty() ? std::string("signed in") : "signed in as \"" + username + "\""));
}

http::Response WebConsole::sign_out(const http::Request& request) const {
  if (request.method != "POST") {
    return errors::method_not_routed().response();
  }
  auto who = caller(request);
  if (!who) {
    return refuse(401, "Unauthorized", "Unauthorized");
  }
  if (!webconsole::same_secret(request.header("X-CSRF-Token"), who->csrf)) {
    return refuse(403, "Forbidden",
                  "the web console needs its CSRF token (header X-CSRF-Token) on POST requests");
  }
  if (!who->session_id.empty()) {
    sessions_->close(who->session_id);
  }
  http::Response response = success("signed out");
  response.headers.emplace_back("Set-Cookie",
                                webconsole::set_cookie(cookie_name("session"), "", true, 0));
  response.headers.emplace_back("Set-Cookie",
                                webconsole::set_cookie(cookie_name("csrf"), "", false, 0));
  no_store(response);
  return response;
}

}  // namespace apiserver
