// LabelSelector from a metav1.LabelSelector, printed and matched against labels. The query text
// is parsed in label_selector_parser.cpp, requirements are checked in label_requirements.cpp, and
// FieldSelector is field_selector.cpp.
#include "registry/selectors.h"

#include "registry/go_text.h"
#include "registry/label_requirements.h"

#include <algorithm>
#include <cstdint>

namespace apiserver::registry {
namespace {

const std::string* label_value(const nlohmann::json& labels, const std::string& key,
                               std::string& scratch) {
  if (!labels.is_object()) {
    return nullptr;
  }
  auto it = labels.find(key);
  if (it == labels.end()) {
    return nullptr;
  }
  if (it->is_string()) {
    return it->get_ptr<const std::string*>();
  }
  scratch.clear();
  return &scratch;
}

bool requirement_matches(const LabelRequirement& r, const nlohmann::json& labels) {
  std::string scratch;
  const std::string* value = label_value(labels, r.key, scratch);
  auto has = [&](const std::string& v) {
    return std::find(r.values.begin(), r.values.end(), v) != r.values.end();
  };
  switch (r.op) {
    case LabelOperator::In:
    case LabelOperator::Equals:
    case LabelOperator::DoubleEquals:
      return value != nullptr && has(*value);
    case LabelOperator::NotIn:
    case LabelOperator::NotEquals:
      return value == nullptr || !has(*value);
    case LabelOperator::Exists:
      return value != nullptr;
    case LabelOperator::DoesNotExist:
      return value == nullptr;
    case LabelOperator::GreaterThan:
    case LabelOperator::LessThan: {
      int64_t have = 0;
      int64_t want = 0;
      if (value == nullptr || r.values.size() != 1 || !parse_int64(*value, have) ||
          !parse_int64(r.values[0], want)) {
        return false;
      }
      return r.op == LabelOperator::GreaterThan ? have > want : have < want;
    }
  }
  return false;
}

// A string member of an object; "" when absent or of another type.
std::string string_field(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

common::Result<LabelSelector> LabelSelector::from_json(const nlohmann::json& selector) {
  LabelSelector out;
  if (selector.is_null()) {
    out.nothing_ = true;
    return out;
  }
  if (!selector.is_object()) {
    return std::string("label selector must be an object");
  }
  const auto match_labels = selector.value("matchLabels", nlohmann::json());
  const auto match_expressions = selector.value("matchExpressions", nlohmann::json());
  if (!match_labels.is_null() && !match_labels.is_object()) {
    return std::string("matchLabels must be an object");
  }
  if (!match_expressions.is_null() && !match_expressions.is_array()) {
    return std::string("matchExpressions must be an array");
  }
  if (match_labels.is_object()) {
    for (auto it = match_labels.begin(); it != match_labels.end(); ++it) {
      if (!it.value().is_string()) {
        return std::string("matchLabels values must be strings");
      }
      std::vector<std::string> values{it.value().get<std::string>()};
      if (auto e = check_requirement(it.key(), LabelOperator::Equals, values); !e.empty()) {
        return e;
      }
      out.requirements_.push_back({it.key(), LabelOperator::Equals, std::move(values)});
    }
  }
  if (match_expressions.is_array()) {
    for (const auto& expr : match_expressions) {
      if (!expr.is_object()) {
        return std::string("matchExpressions items must be objects");
      }
      const auto key = string_field(expr, "key");
      const auto op_name = string_field(expr, "operator");
      std::optional<std::vector<std::string>> values;
      if (auto v = expr.find("values"); v != expr.end() && v->is_array() && !v->empty()) {
        values.emplace();
        for (const auto& item : *v) {
          if (!item.is_string()) {
            return std::string("matchExpressions values must be strings");
          }
          values->push_back(item.get<std::string>());
        }
      }
      LabelOperator op;
      if (op_name == "In") {
        op = LabelOperator::In;
      } else if (op_name == "NotIn") {
        op = LabelOperator::NotIn;
      } else if (op_name == "Exists") {
        op = LabelOperator::Exists;
      } else if (op_name == "DoesNotExist") {
        op = LabelOperator::DoesNotExist;
      } else {
        return go_quote(op_name) + " is not a valid label selector operator";
      }
      if (auto e = check_requirement(key, op, values); !e.empty()) {
        return e;
      }
      out.requirements_.push_back({key, op, values.value_or(std::vector<std::string>{})});
    }
  }
  std::stable_sort(out.requirements_.begin(), out.requirements_.end(),
                   [](const auto& a, const auto& b) { return a.key < b.key; });
  return out;
}

std::string LabelSelector::to_string() const {
  std::vector<std::string> parts;
  for (const auto& r : requirements_) {
    auto values = r.values;
    std::sort(values.begin(), values.end());
    const std::string first = values.empty() ? std::string() : values.front();
    switch (r.op) {
      case LabelOperator::Exists:
        parts.push_back(r.key);
        break;
      case LabelOperator::DoesNotExist:
        parts.push_back("!" + r.key);
        break;
      case LabelOperator::In:
        parts.push_back(r.key + " in (" + join(values, ",") + ")");
        break;
      case LabelOperator::NotIn:
        parts.push_back(r.key + " notin (" + join(values, ",") + ")");
        break;
      case LabelOperator::Equals:
        parts.push_back(r.key + "=" + first);
        break;
      case LabelOperator::DoubleEquals:
        parts.push_back(r.key + "==" + first);
        break;
      case LabelOperator::NotEquals:
        parts.push_back(r.key + "!=" + first);
        break;
      case LabelOperator::GreaterThan:
        parts.push_back(r.key + ">" + first);
        break;
      case LabelOperator::LessThan:
        parts.push_back(r.key + "<" + first);
        break;
    }
  }
  return join(parts, ",");
}

bool LabelSelector::matches(const nlohmann::json& labels) const {
  if (nothing_) {
    return false;
  }
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const auto& r) { return requirement_matches(r, labels); });
}

}  // namespace apiserver::registry
