#include "serviceaccount/jose_json.h"

#include <cmath>

#include "registry/go_text.h"

namespace apiserver::serviceaccount {
namespace {

std::string type_error(const JoseJson& value, std::string_view go_type) {
  return "json: cannot unmarshal " + registry::go_json_kind(value) + " into Go value of type " +
         std::string(go_type);
}

bool ascii_fold_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) {
      return false;
    }
  }
  return true;
}

}  // namespace

common::Result<JoseJson> parse_jose_json(std::string_view text) {
  if (registry::json_text_depth(text) > kMaxJoseDepth) {
    return common::Result<JoseJson>::failure("exceeded max depth");
  }
  JoseJson value = JoseJson::parse(text, nullptr, false);
  if (value.is_discarded()) {
    return common::Result<JoseJson>::failure("invalid JSON");
  }
  return value;
}

const JoseJson* field(const JoseJson& object, std::string_view key) {
  if (!object.is_object()) {
    return nullptr;
  }
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    return nullptr;
  }
  return &*it;
}

std::string JoseReader::string(const JoseJson& object, std::string_view key) {
  const JoseJson* value = field(object, key);
  if (value == nullptr) {
    return {};
  }
  if (!value->is_string()) {
    if (error.empty()) {
      error = type_error(*value, "string");
    }
    return {};
  }
  return value->get<std::string>();
}

std::optional<int64_t> JoseReader::numeric_date(const JoseJson& object, std::string_view key) {
  const JoseJson* value = field(object, key);
  if (value == nullptr) {
    return std::nullopt;
  }
  if (value->is_number_integer() && !value->is_number_unsigned()) {
    return value->get<int64_t>();
  }
  if (value->is_number()) {
    // Go converts the float64 to int64: whole seconds toward zero, and on amd64 the most
    // negative int64 for what does not fit.
    const double seconds = value->get<double>();
    if (!(std::fabs(seconds) < 9223372036854775808.0)) {
      return INT64_MIN;
    }
    return static_cast<int64_t>(seconds);
  }
  if (error.empty()) {
    error = "go-jose/go-jose/jwt: expected number value to unmarshal into NumericDate";
  }
  return std::nullopt;
}

std::vector<std::string> JoseReader::audience(const JoseJson& object, std::string_view key) {
  static const std::string kAudienceError =
      "go-jose/go-jose/jwt: expected string or array value to unmarshal to Audience";
  if (!object.contains(key)) {
    return {};
  }
  const JoseJson& value = object.at(std::string(key));
  if (value.is_string()) {
    return {value.get<std::string>()};
  }
  std::vector<std::string> out;
  bool all_strings = value.is_array();
  if (all_strings) {
    for (const auto& item : value) {
      if (!item.is_string()) {
        all_strings = false;
        break;
      }
      out.push_back(item.get<std::string>());
    }
  }
  if (!all_strings) {
    if (error.empty()) {
      error = kAudienceError;  // null included: go-jose's decoder gets it too
    }
    return {};
  }
  return out;
}

const JoseJson* JoseReader::object(const JoseJson& object, std::string_view key,
                                   std::string_view go_type) {
  const JoseJson* value = field(object, key);
  if (value == nullptr || value->is_object()) {
    return value;
  }
  if (error.empty()) {
    error = type_error(*value, go_type);
  }
  return nullptr;
}

std::optional<std::string> peek_issuer(const JoseJson& payload) {
  if (!payload.is_object()) {
    return std::nullopt;
  }
  auto it = payload.find("iss");
  if (it == payload.end()) {
    for (auto candidate = payload.begin(); candidate != payload.end(); ++candidate) {
      if (ascii_fold_equal(candidate.key(), "iss")) {
        it = candidate;
      }
    }
  }
  if (it == payload.end() || it->is_null()) {
    return std::string();
  }
  if (!it->is_string()) {
    return std::nullopt;
  }
  return it->get<std::string>();
}

}  // namespace apiserver::serviceaccount
