#include "registry/name_scanners.h"

namespace apiserver::registry {
namespace {

constexpr std::string_view kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1035LabelErrMsg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character";
constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kConfigMapKeyFmt = "[-._a-zA-Z0-9]+";
constexpr std::string_view kConfigMapKeyErrMsg =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

constexpr size_t kDns1123LabelMaxLength = 63;
constexpr size_t kDns1123SubdomainMaxLength = 253;
constexpr size_t kDns1035LabelMaxLength = 63;
constexpr size_t kQualifiedNameMaxLength = 63;
constexpr size_t kLabelValueMaxLength = 63;

bool lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool alnum(char c) {
  return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

}  // namespace

bool matches_dns1123_label(std::string_view s) {
  if (s.empty() || !lower_alnum(s.front()) || !lower_alnum(s.back())) {
    return false;
  }
  for (char c : s) {
    if (!lower_alnum(c) && c != '-') {
      return false;
    }
  }
  return true;
}

bool matches_dns1123_subdomain(std::string_view s) {
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    if (!matches_dns1123_label(
            s.substr(start, dot == std::string_view::npos ? dot : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    start = dot + 1;
  }
}

bool matches_dns1035_label(std::string_view s) {
  return matches_dns1123_label(s) && s.front() >= 'a' && s.front() <= 'z';
}

bool matches_qualified_name(std::string_view s) {
  if (s.empty() || !alnum(s.front()) || !alnum(s.back())) {
    return false;
  }
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

std::string regex_error(std::string_view msg, std::string_view fmt,
                        std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  if (examples.size() == 0) {
    return out + " (regex used for validation is '" + std::string(fmt) + "')";
  }
  out += " (e.g. ";
  bool first = true;
  for (auto example : examples) {
    out += first ? "'" : " or '";
    out += example;
    out += "', ";
    first = false;
  }
  out += "regex used for validation is '";
  out += fmt;
  return out + "')";
}

std::string max_len_error(size_t length) {
  return "must be no more than " + std::to_string(length) + " characters";
}

std::vector<std::string> dns1123_label_problems(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123LabelMaxLength) {
    errs.push_back(max_len_error(kDns1123LabelMaxLength));
  }
  if (!matches_dns1123_label(value)) {
    if (matches_dns1123_subdomain(value)) {
      // A valid subdomain of a valid length: only its dots are wrong.
      errs.push_back("must not contain dots");
    } else {
      errs.push_back(regex_error(kDns1123LabelErrMsg, kDns1123LabelFmt, {"my-name", "123-abc"}));
    }
  }
  return errs;
}

std::vector<std::string> dns1123_subdomain_problems(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123SubdomainMaxLength) {
    errs.push_back(max_len_error(kDns1123SubdomainMaxLength));
  }
  if (!matches_dns1123_subdomain(value)) {
    errs.push_back(regex_error(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> dns1035_label_problems(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1035LabelMaxLength) {
    errs.push_back(max_len_error(kDns1035LabelMaxLength));
  }
  if (!matches_dns1035_label(value)) {
    errs.push_back(regex_error(kDns1035LabelErrMsg, kDns1035LabelFmt, {"my-name", "abc-123"}));
  }
  return errs;
}

std::vector<std::string> label_key_problems(std::string_view key) {
  std::vector<std::string> errs;
  std::string_view name = key;
  const size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    if (key.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back(
          "a qualified name " +
          regex_error(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
          " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    const std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const auto& msg : dns1123_subdomain_problems(prefix)) {
        errs.push_back("prefix part " + msg);
      }
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > kQualifiedNameMaxLength) {
    errs.push_back("name part " + max_len_error(kQualifiedNameMaxLength));
  }
  if (!matches_qualified_name(name)) {
    errs.push_back("name part " + regex_error(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                              {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> label_value_problems(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength) {
    errs.push_back(max_len_error(kLabelValueMaxLength));
  }
  if (!value.empty() && !matches_qualified_name(value)) {
    errs.push_back(
        regex_error(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

std::vector<std::string> config_map_key_problems(std::string_view key) {
  std::vector<std::string> errs;
  if (key.size() > kDns1123SubdomainMaxLength) {
    errs.push_back(max_len_error(kDns1123SubdomainMaxLength));
  }
  bool ok = !key.empty();
  for (char c : key) {
    ok = ok && (alnum(c) || c == '-' || c == '.' || c == '_');
  }
  if (!ok) {
    errs.push_back(
        regex_error(kConfigMapKeyErrMsg, kConfigMapKeyFmt, {"key.name", "KEY_NAME", "key-name"}));
  }
  if (key == ".") {
    errs.push_back("must not be '.'");
  } else if (key == "..") {
    errs.push_back("must not be '..'");
  } else if (key.substr(0, 2) == "..") {
    errs.push_back("must not start with '..'");
  }
  return errs;
}

std::vector<std::string> port_name_problems(std::string_view port) {
  std::vector<std::string> errs;
  if (port.size() > 15) {
    errs.push_back(max_len_error(15));
  }
  bool charset = !port.empty();
  bool letter = false;
  for (char c : port) {
    charset = charset && (lower_alnum(c) || c == '-');
    letter = letter || (c >= 'a' && c <= 'z');
  }
  if (!charset) {
    errs.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  }
  if (!letter) {
    errs.push_back("must contain at least one letter (a-z)");
  }
  if (port.find("--") != std::string_view::npos) {
    errs.push_back("must not contain consecutive hyphens");
  }
  if (!port.empty() && (port.front() == '-' || port.back() == '-')) {
    errs.push_back("must not begin or end with a hyphen");
  }
  return errs;
}

}  // namespace apiserver::registry
