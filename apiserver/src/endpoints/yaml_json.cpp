#include "endpoints/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <regex>

namespace apiserver::endpoints {
namespace {

constexpr int kMaxDepth = 100;

nlohmann::json scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") {
    return text;  // quoted: always a string
  }
  static const std::regex kInt("[-+]?(0|[1-9][0-9]*)");
  static const std::regex kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (text == "null" || text == "Null" || text == "NULL" || text == "~" || text.empty()) {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") {
    return true;
  }
  if (text == "false" || text == "False" || text == "FALSE") {
    return false;
  }
  if (std::regex_match(text, kInt)) {
    try {
      return std::stoll(text);
    } catch (...) {
      return text;
    }
  }
  if (std::regex_match(text, kFloat)) {
    try {
      return std::stod(text);
    } catch (...) {
      return text;
    }
  }
  return text;
}

nlohmann::json convert(const YAML::Node& node, int depth) {
  if (depth > kMaxDepth) {
    throw YAML::Exception(node.Mark(), "nesting is deeper than " + std::to_string(kMaxDepth));
  }
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return scalar(node);
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& item : node) {
        out.push_back(convert(item, depth + 1));
      }
      return out;
    }
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& entry : node) {
        out[entry.first.as<std::string>()] = convert(entry.second, depth + 1);
      }
      return out;
    }
  }
  return nullptr;
}

void emit(YAML::Emitter& out, const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      out << YAML::BeginMap;
      for (auto it = value.begin(); it != value.end(); ++it) {
        out << YAML::Key << it.key() << YAML::Value;
        emit(out, it.value());
      }
      out << YAML::EndMap;
      break;
    case nlohmann::json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& item : value) {
        emit(out, item);
      }
      out << YAML::EndSeq;
      break;
    case nlohmann::json::value_t::string: {
      // Quote strings that would read back as something else.
      const std::string& s = value.get_ref<const std::string&>();
      nlohmann::json back = scalar(YAML::Load(s.empty() ? "''" : s));
      bool plain_safe = !s.empty() && back.is_string() && back == s &&
                        s.find_first_of(":#{}[],&*!|>'\"%@`\n") == std::string::npos &&
                        s.front() != ' ' && s.back() != ' ' && s.front() != '-' &&
                        s.front() != '?';
      if (plain_safe) {
        out << s;
      } else {
        out << YAML::DoubleQuoted << s;
      }
      break;
    }
    case nlohmann::json::value_t::null:
      out << YAML::Null;
      break;
    case nlohmann::json::value_t::boolean:
      out << (value.get<bool>() ? "true" : "false");
      break;
    default:
      out << value.dump();
      break;
  }
}

}  // namespace

std::optional<nlohmann::json> yaml_to_json(const std::string& text, std::string& error) {
  try {
    auto documents = YAML::LoadAll(text);
    if (documents.size() != 1) {
      error = documents.empty() ? "the YAML body holds no document"
                                : "the YAML body holds more than one document";
      return std::nullopt;
    }
    return convert(documents.front(), 0);
  } catch (const YAML::Exception& e) {
    error = "error converting YAML to JSON: yaml: line " + std::to_string(e.mark.line + 1) +
            ": " + e.msg;
    return std::nullopt;
  }
}

std::string json_to_yaml(const nlohmann::json& doc) {
  YAML::Emitter out;
  emit(out, doc);
  return std::string(out.c_str()) + "\n";
}

}  // namespace apiserver::endpoints
