// The checks of one label requirement (label_requirements.h): key, operator and values, worded
// as labels.NewRequirement's field errors.
#include "registry/label_requirements.h"

#include "registry/go_text.h"
#include "registry/name_scanners.h"

#include <algorithm>

namespace apiserver::registry {
namespace {

// Go's %#v of a []string: []string(nil), []string{}, []string{"a", "b"}.
std::string go_string_slice(const std::optional<std::vector<std::string>>& values) {
  if (!values) {
    return "[]string(nil)";
  }
  std::string out = "[]string{";
  for (size_t i = 0; i < values->size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += go_quote((*values)[i]);
  }
  return out + "}";
}

// A field.Error of type Invalid rendered as `<path>: Invalid value: <value>: <detail>`;
// `path` is "<nil>" when the parser validates a key without a path, as upstream prints it.
std::string invalid(const std::string& path, const std::string& rendered_value,
                    const std::string& detail) {
  return path + ": Invalid value: " + rendered_value + ": " + detail;
}

// An aggregate of errors: one alone, several as "[a, b]"; repeats dropped.
std::string aggregate(const std::vector<std::string>& errors) {
  std::vector<std::string> unique;
  for (const auto& e : errors) {
    if (std::find(unique.begin(), unique.end(), e) == unique.end()) {
      unique.push_back(e);
    }
  }
  if (unique.size() == 1) {
    return unique.front();
  }
  std::string out = "[";
  for (size_t i = 0; i < unique.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += unique[i];
  }
  return out + "]";
}

}  // namespace

std::string validate_label_key(std::string_view key, const std::string& path) {
  const auto errs = label_key_problems(key);
  return errs.empty() ? std::string() : invalid(path, go_quote(key), join(errs, "; "));
}

bool parse_int64(std::string_view s, int64_t& out) {
  size_t i = 0;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    i = 1;
  }
  if (i == s.size()) {
    return false;
  }
  uint64_t magnitude = 0;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') {
      return false;
    }
    const uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (magnitude > (limit - digit) / 10) {
      return false;
    }
    magnitude = magnitude * 10 + digit;
  }
  out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

std::string check_requirement(const std::string& key, LabelOperator op,
                              const std::optional<std::vector<std::string>>& values) {
  std::vector<std::string> errs;
  if (auto e = validate_label_key(key, "key"); !e.empty()) {
    errs.push_back(e);
  }
  const std::vector<std::string> none;
  const auto& vals = values ? *values : none;
  switch (op) {
    case LabelOperator::In:
    case LabelOperator::NotIn:
      if (vals.empty()) {
        errs.push_back(invalid("values", go_string_slice(values),
                               "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case LabelOperator::Equals:
    case LabelOperator::DoubleEquals:
    case LabelOperator::NotEquals:
      if (vals.size() != 1) {
        errs.push_back(invalid("values", go_string_slice(values),
                               "exact-match compatibility requires one single value"));
      }
      break;
    case LabelOperator::Exists:
    case LabelOperator::DoesNotExist:
      if (!vals.empty()) {
        errs.push_back(invalid("values", go_string_slice(values),
                               "values set must be empty for exists and does not exist"));
      }
      break;
    case LabelOperator::GreaterThan:
    case LabelOperator::LessThan:
      if (vals.size() != 1) {
        errs.push_back(invalid("values", go_string_slice(values),
                               "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      for (size_t i = 0; i < vals.size(); ++i) {
        int64_t ignored = 0;
        if (!parse_int64(vals[i], ignored)) {
          errs.push_back(invalid("values[" + std::to_string(i) + "]", go_quote(vals[i]),
                                 "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
      break;
  }
  for (size_t i = 0; i < vals.size(); ++i) {
    const auto value_errs = label_value_problems(vals[i]);
    if (!value_errs.empty()) {
      errs.push_back(invalid("values[" + std::to_string(i) + "][" + key + "]", go_quote(vals[i]),
                             join(value_errs, "; ")));
    }
  }
  return errs.empty() ? std::string() : aggregate(errs);
}

}  // namespace apiserver::registry
