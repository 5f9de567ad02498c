#include "authorization/attributes.h"

#include <algorithm>

namespace apiserver::authorization {

bool User::in_group(const std::string& group) const {
  return std::find(groups.begin(), groups.end(), group) != groups.end();
}

bool parse_field_selector(std::string_view text, std::vector<FieldRequirement>& out) {
  out.clear();
  std::vector<std::string> terms(1);
  // Split at commas that no backslash escapes, keeping escapes for the value step.
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      terms.back() += c;
      terms.back() += text[++i];
    } else if (c == ',') {
      terms.emplace_back();
    } else {
      terms.back() += c;
    }
  }
  for (const auto& term : terms) {
    if (term.empty()) {
      continue;
    }
    FieldRequirement req;
    size_t op = std::string::npos;
    size_t width = 0;
    // The first unescaped operator: "!=", "==" or "=".
    for (size_t i = 0; i < term.size(); ++i) {
      if (term[i] == '\\') {
        ++i;
        continue;
      }
      if (term.compare(i, 2, "!=") == 0) {
        op = i;
        width = 2;
        req.equals = false;
        break;
      }
      if (term[i] == '=') {
        op = i;
        width = term.compare(i, 2, "==") == 0 ? 2 : 1;
        break;
      }
    }
    if (op == std::string::npos) {
      out.clear();
      return false;
    }
    req.field = term.substr(0, op);
    const std::string raw = term.substr(op + width);
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\\' && i + 1 < raw.size()) {
        req.value += raw[++i];
      } else {
        req.value += raw[i];
      }
    }
    out.push_back(std::move(req));
  }
  return true;
}

}  // namespace apiserver::authorization
