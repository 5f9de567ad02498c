#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>

#include "console/model/yaml_text.h"

namespace console::model {

namespace {

using json = nlohmann::json;

bool equals_any(const std::string& s, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    if (s == w) {
      return true;
    }
  }
  return false;
}

// A plain (unquoted) scalar typed as YAML 1.2's core schema types it.
json plain_scalar(const std::string& s) {
  if (s.empty() || equals_any(s, {"~", "null", "Null", "NULL"})) {
    return nullptr;
  }
  if (equals_any(s, {"true", "True", "TRUE"})) {
    return true;
  }
  if (equals_any(s, {"false", "False", "FALSE"})) {
    return false;
  }
  int64_t integer = 0;
  const char* begin = s.data() + (s.front() == '+' ? 1 : 0);
  const char* end = s.data() + s.size();
  if (auto [p, ec] = std::from_chars(begin, end, integer); ec == std::errc() && p == end) {
    return integer;
  }
  double number = 0;
  if (auto [p, ec] = std::from_chars(begin, end, number, std::chars_format::general);
      ec == std::errc() && p == end && std::isfinite(number)) {
    return number;
  }
  return s;
}

json convert(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      // "!" marks a quoted (or explicitly string) scalar; "?" a plain one.
      return node.Tag() == "?" ? plain_scalar(node.Scalar()) : json(node.Scalar());
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) {
        out.push_back(convert(item));
      }
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& entry : node) {
        out[entry.first.as<std::string>()] = convert(entry.second);
      }
      return out;
    }
  }
  return nullptr;
}

}  // namespace

common::Result<json> parse_yaml(std::string_view text) {
  try {
    std::vector<YAML::Node> documents = YAML::LoadAll(std::string(text));
    if (documents.size() > 1) {
      return "the editor holds " + std::to_string(documents.size()) +
             " YAML documents; apply takes one";
    }
    return documents.empty() ? json(nullptr) : convert(documents[0]);
  } catch (const YAML::Exception& e) {
    return e.mark.is_null() ? e.msg
                            : "line " + std::to_string(e.mark.line + 1) + ", column " +
                                  std::to_string(e.mark.column + 1) + ": " + e.msg;
  }
}

}  // namespace console::model
