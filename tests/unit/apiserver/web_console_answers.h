// Reading the web console front door's answers in its unit tests: a header, the Status body,
// the cookies an answer sets (as a Cookie header would send them back), the CSRF cookie's value.
#pragma once

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "apiserver/http.h"

namespace web_console_test {

inline std::string header(const apiserver::http::Response& response, const std::string& name) {
  for (const auto& [n, v] : response.headers) {
    if (n == name) {
      return v;
    }
  }
  return {};
}

inline nlohmann::json status_of(const apiserver::http::Response& response) {
  auto doc = nlohmann::json::parse(response.body);
  CHECK(doc["kind"] == "Status");
  CHECK(doc["code"] == response.status);
  return doc;
}

inline std::string cookies_of(const apiserver::http::Response& response) {
  std::string cookies;
  for (const auto& [name, value] : response.headers) {
    if (name == "Set-Cookie") {
      cookies += (cookies.empty() ? "" : "; ") + value.substr(0, value.find(';'));
    }
  }
  return cookies;
}

// The value of the CSRF cookie of the console on port 6480 in a Cookie header.
inline std::string csrf_of(const std::string& cookies) {
  auto at = cookies.find("ks_csrf_6480=");
  REQUIRE(at != std::string::npos);
  auto value = cookies.substr(at + 13);
  return value.substr(0, value.find(';'));
}

}  // namespace web_console_test
