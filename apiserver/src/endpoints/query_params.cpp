#include "endpoints/query_params.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "endpoints/status.h"
#include "registry/go_text.h"
#include "registry/objects.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

// Ten years: far beyond any client's wish, and a steady_clock deadline cannot overflow.
constexpr int64_t kMaxWatchTimeoutSeconds = int64_t{10} * 365 * 24 * 3600;

std::string num_error(const char* func, std::string_view text, const char* why) {
  return std::string("strconv.") + func + ": parsing " + registry::go_quote(text) + ": " + why;
}

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

common::Result<int64_t> go_parse_int64(std::string_view text) {
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  if (!all_digits(digits)) {
    return num_error("ParseInt", text, "invalid syntax");
  }
  // Parsed with its sign so that the most negative value fits.
  std::string signed_digits = (negative ? "-" : "") + std::string(digits);
  int64_t value = 0;
  auto [end, ec] =
      std::from_chars(signed_digits.data(), signed_digits.data() + signed_digits.size(), value);
  if (ec != std::errc() || end != signed_digits.data() + signed_digits.size()) {
    return num_error("ParseInt", text, "value out of range");
  }
  return value;
}

common::Result<uint64_t> go_parse_uint64(std::string_view text) {
  if (!all_digits(text)) {
    return num_error("ParseUint", text, "invalid syntax");
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return num_error("ParseUint", text, "value out of range");
  }
  return value;
}

errors::Result<ListOptions> decode_list_options(const http::Request& request, bool watch) {
  ListOptions options;
  options.resource_version = request.query_value("resourceVersion");
  options.resource_version_match = request.query_value("resourceVersionMatch");
  options.continue_token = request.query_value("continue");
  // The parameter codec reads the first value even when it is empty.
  if (request.has_query("timeoutSeconds")) {
    auto parsed = go_parse_int64(request.query_value("timeoutSeconds"));
    if (!parsed) {
      return errors::bad_request(parsed.error());
    }
    options.timeout_seconds = *parsed;
  }
  if (request.has_query("limit")) {
    auto parsed = go_parse_int64(request.query_value("limit"));
    if (!parsed) {
      return errors::bad_request(parsed.error());
    }
    options.limit = *parsed;
  }
  std::vector<registry::FieldError> errors;
  const std::string& match = options.resource_version_match;
  const std::string path = "resourceVersionMatch";
  if (watch) {
    // sendInitialEvents (the WatchList feature) is not served, so any match is forbidden.
    if (!match.empty()) {
      errors.push_back(registry::forbidden(
          path,
          "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
      if (match != "NotOlderThan") {
        errors.push_back(
            registry::not_supported(path, registry::go_quote(match), {"NotOlderThan"}));
      }
      if (!options.continue_token.empty()) {
        errors.push_back(registry::forbidden(
            path, "resourceVersionMatch is forbidden when continue is provided"));
      }
    }
  } else if (!match.empty()) {
    if (options.resource_version.empty()) {
      errors.push_back(registry::forbidden(
          path, "resourceVersionMatch is forbidden unless resourceVersion is provided"));
    }
    if (!options.continue_token.empty()) {
      errors.push_back(
          registry::forbidden(path, "resourceVersionMatch is forbidden when continue is provided"));
    }
    if (match != "Exact" && match != "NotOlderThan") {
      errors.push_back(
          registry::not_supported(path, registry::go_quote(match), {"Exact", "NotOlderThan", ""}));
    }
    if (match == "Exact" && options.resource_version == "0") {
      errors.push_back(registry::forbidden(
          path, "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
    }
  }
  if (!errors.empty()) {
    return invalid_error("meta.k8s.io", "ListOptions", "", errors);
  }
  return options;
}

common::Result<uint64_t, registry::FieldError> parse_resource_version(const std::string& text) {
  if (text.empty() || text == "0") {
    return uint64_t{0};
  }
  auto value = go_parse_uint64(text);
  if (!value) {
    return registry::invalid_rendered("resourceVersion", registry::go_quote(text), value.error());
  }
  return *value;
}

http::Response too_large_resource_version(uint64_t requested, int64_t current) {
  return status_with_details(
      504, "Timeout",
      "Timeout: Too large resource version: " + std::to_string(requested) +
          ", current: " + std::to_string(current),
      {{"causes", json::array({{{"reason", "ResourceVersionTooLarge"},
                                {"message", "Too large resource version"}}})},
       {"retryAfterSeconds", 1}});
}

int64_t watch_timeout_seconds(const std::optional<int64_t>& timeout_seconds,
                              int64_t default_seconds) {
  if (!timeout_seconds || *timeout_seconds == 0) {
    return default_seconds;
  }
  return std::clamp<int64_t>(*timeout_seconds, 0, kMaxWatchTimeoutSeconds);
}

bool query_flag(const http::Request& request, const std::string& name) {
  static const std::set<std::string> kTrue = {"1", "t", "T", "true", "TRUE", "True"};
  return kTrue.count(request.query_value(name)) != 0;
}

}  // namespace apiserver::endpoints
