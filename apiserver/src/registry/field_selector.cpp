// FieldSelector: the fieldSelector query parameter parsed for one resource and matched against
// stored objects (k8s.io/apimachinery/pkg/fields and the registered field label conversions).
#include "registry/selectors.h"

#include "registry/crd_schema.h"  // go_format_float
#include "registry/go_text.h"

#include <algorithm>
#include <cstdint>

namespace apiserver::registry {
namespace {

// Splits on commas that are not escaped by a backslash; escapes stay in the terms.
std::vector<std::string> split_terms(std::string_view text) {
  std::vector<std::string> terms;
  if (text.empty()) {
    return terms;
  }
  size_t start = 0;
  bool escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (escaped) {
      escaped = false;
    } else if (text[i] == '\\') {
      escaped = true;
    } else if (text[i] == ',') {
      terms.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.emplace_back(text.substr(start));
  return terms;
}

// Splits at the first operator; "!=" and "==" win over "=" at the same position.
bool split_term(std::string_view term, std::string& lhs, FieldOperator& op, std::string& rhs) {
  for (size_t i = 0; i < term.size(); ++i) {
    const std::string_view rest = term.substr(i);
    size_t width = 0;
    if (rest.starts_with("!=")) {
      op = FieldOperator::NotEquals, width = 2;
    } else if (rest.starts_with("==")) {
      op = FieldOperator::Equals, width = 2;
    } else if (rest.starts_with("=")) {
      op = FieldOperator::Equals, width = 1;
    } else {
      continue;
    }
    lhs = std::string(term.substr(0, i));
    rhs = std::string(term.substr(i + width));
    return true;
  }
  return false;
}

// fields.UnescapeValue. Like upstream, the value is decoded rune by rune when it holds any of
// `\,=`, so invalid UTF-8 then becomes U+FFFD.
common::Result<std::string> unescape_value(std::string_view s) {
  using Unescaped = common::Result<std::string>;
  if (s.find_first_of("\\,=") == std::string_view::npos) {
    return std::string(s);
  }
  std::string out;
  bool escaped = false;
  for (size_t i = 0; i < s.size();) {
    size_t width = 1;
    const char32_t r = decode_rune(s, i, width);
    i += width;
    if (escaped) {
      if (r == '\\' || r == ',' || r == '=') {
        append_utf8(out, r);
      } else {
        std::string sequence = "\\";
        append_utf8(sequence, r);
        return Unescaped::failure("invalid field selector: invalid escape sequence: " + sequence);
      }
      escaped = false;
      continue;
    }
    if (r == '\\') {
      escaped = true;
    } else if (r == ',' || r == '=') {
      // Go prints the rune with %v: its code point in decimal.
      return Unescaped::failure("invalid field selector: unescaped character in value: " +
                                std::to_string(static_cast<uint32_t>(r)));
    } else {
      append_utf8(out, r);
    }
  }
  if (escaped) {
    return Unescaped::failure("invalid field selector: invalid escape sequence: \\");
  }
  return out;
}

std::string unknown_label_error(const Resource& resource, const std::string& label) {
  const std::string& style = resource.field_selectors.error_style;
  if (style == "core") {
    return "field label not supported: " + label;
  }
  if (style == "batch") {
    return "field label " + go_quote(label) + " not supported for batchv1.Job";
  }
  return go_quote(label) + " is not a known field selector: only \"metadata.name\", " +
         "\"metadata.namespace\"";
}

std::vector<std::string> split_path(const std::string& label) {
  std::vector<std::string> path;
  size_t start = 0;
  while (true) {
    const size_t dot = label.find('.', start);
    path.push_back(label.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) {
      return path;
    }
    start = dot + 1;
  }
}

// Where kube-apiserver's selectable-field sets (ToSelectableFields / GetAttrs of each registry)
// take a label's value from, in terms of the served JSON. Labels not listed read the dotted path.
void value_source(const Resource& resource, const std::string& label,
                  FieldSelector::ValueKind& kind, std::vector<std::string>& path) {
  using Kind = FieldSelector::ValueKind;
  kind = Kind::Text;
  path = split_path(label);
  const std::string& g = resource.group;
  const std::string& r = resource.resource;
  if (g.empty() && r == "pods") {
    if (label == "spec.hostNetwork") {
      kind = Kind::Bool;
    } else if (label == "status.podIP") {
      kind = Kind::FirstPodIP;
    } else if (label == "status.podIPs") {
      kind = Kind::Absent;  // accepted by the conversion, missing from the field set
    }
  } else if (g.empty() && r == "nodes" && label == "spec.unschedulable") {
    kind = Kind::Bool;
  } else if (g.empty() && r == "replicationcontrollers" && label == "status.replicas") {
    kind = Kind::Integer;
  } else if ((g.empty() || g == "events.k8s.io") && r == "events") {
    if (label == "source") {
      path = {"source", "component"};
    } else if (label == "reportingComponent") {
      path = {"reportingComponent"};
    }
  } else if (g == "batch" && r == "jobs" && label == "status.successful") {
    kind = Kind::Integer;
    path = {"status", "succeeded"};
  }
}

const nlohmann::json* find_path(const nlohmann::json& object,
                                const std::vector<std::string>& path) {
  const nlohmann::json* at = &object;
  for (const auto& part : path) {
    if (!at->is_object()) {
      return nullptr;
    }
    auto it = at->find(part);
    if (it == at->end()) {
      return nullptr;
    }
    at = &*it;
  }
  return at;
}

std::string scalar_text(const nlohmann::json& v) {
  if (v.is_string()) {
    return v.get<std::string>();
  }
  if (v.is_boolean()) {
    return v.get<bool>() ? "true" : "false";
  }
  if (v.is_number_integer()) {
    return v.dump();
  }
  if (v.is_number_float()) {
    // A custom resource's integer field may hold 5.0 (a float64 in Go): fmt.Sprint gives "5".
    return go_format_float(v.get<double>());
  }
  return "";
}

}  // namespace

common::Result<FieldSelector> FieldSelector::parse(std::string_view text,
                                                   const Resource& resource) {
  auto parts = split_terms(text);
  std::sort(parts.begin(), parts.end());
  std::vector<FieldRequirement> parsed;
  for (const auto& part : parts) {
    if (part.empty()) {
      continue;
    }
    FieldRequirement requirement;
    std::string raw_value;
    if (!split_term(part, requirement.field, requirement.op, raw_value)) {
      return "invalid selector: '" + std::string(text) + "'; can't understand '" + part + "'";
    }
    auto value = unescape_value(raw_value);
    if (!value) {
      return value.error();
    }
    requirement.value = std::move(*value);
    parsed.push_back(std::move(requirement));
  }

  const FieldSelectors& accepted = resource.field_selectors;
  static const std::vector<std::string> kDefaultLabels = {"metadata.name", "metadata.namespace"};
  const auto& labels = accepted.labels.empty() ? kDefaultLabels : accepted.labels;
  FieldSelector selector;
  for (auto& requirement : parsed) {
    if (auto alias = accepted.aliases.find(requirement.field); alias != accepted.aliases.end()) {
      requirement.field = alias->second;
    } else if (std::find(labels.begin(), labels.end(), requirement.field) == labels.end()) {
      return unknown_label_error(resource, requirement.field);
    }
    Term term;
    value_source(resource, requirement.field, term.kind, term.path);
    term.requirement = std::move(requirement);
    selector.terms_.push_back(std::move(term));
  }
  return selector;
}

bool FieldSelector::matches(const nlohmann::json& object) const {
  for (const auto& term : terms_) {
    std::string value;
    switch (term.kind) {
      case ValueKind::Text:
      case ValueKind::Bool:
      case ValueKind::Integer:
        if (const auto* v = find_path(object, term.path); v != nullptr && !v->is_null()) {
          value = scalar_text(*v);
        } else if (term.kind == ValueKind::Bool) {
          value = "false";
        } else if (term.kind == ValueKind::Integer) {
          value = "0";
        }
        break;
      case ValueKind::FirstPodIP:
        if (const auto* ips = find_path(object, {"status", "podIPs"});
            ips != nullptr && ips->is_array() && !ips->empty()) {
          if (const auto* ip = find_path(ips->front(), {"ip"}); ip != nullptr) {
            value = scalar_text(*ip);
          }
        } else if (const auto* ip = find_path(object, {"status", "podIP"}); ip != nullptr) {
          value = scalar_text(*ip);
        }
        break;
      case ValueKind::Absent:
        break;
    }
    const bool equal = value == term.requirement.value;
    if (equal != (term.requirement.op == FieldOperator::Equals)) {
      return false;
    }
  }
  return true;
}

std::optional<std::string> FieldSelector::exact_name() const {
  for (const auto& term : terms_) {
    if (term.requirement.field == "metadata.name" && term.requirement.op == FieldOperator::Equals) {
      return term.requirement.value;
    }
  }
  return std::nullopt;
}

std::vector<FieldRequirement> FieldSelector::requirements() const {
  std::vector<FieldRequirement> out;
  out.reserve(terms_.size());
  for (const auto& term : terms_) {
    out.push_back(term.requirement);
  }
  return out;
}

}  // namespace apiserver::registry
