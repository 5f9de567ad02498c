#include "registry/objects.h"

#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <regex>
#include <set>

namespace apiserver::registry {
namespace {

// Random bytes from OpenSSL's generator, fetched 4 KiB at a time per thread: one call per object
// created costs more than the rest of making its uid.
std::string random_bytes(size_t n) {
  thread_local std::array<unsigned char, 4096> pool;
  thread_local size_t used = pool.size();
  std::string out;
  while (out.size() < n) {
    if (used == pool.size()) {
      RAND_bytes(pool.data(), static_cast<int>(pool.size()));
      used = 0;
    }
    size_t take = std::min(n - out.size(), pool.size() - used);
    out.append(reinterpret_cast<const char*>(pool.data() + used), take);
    used += take;
  }
  return out;
}

const char* kSubdomainText =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const char* kLabelText =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const char* kDns1035Text =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

}  // namespace

std::string rfc3339(std::chrono::system_clock::time_point t) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string new_uid() {
  std::string b = random_bytes(16);
  b[6] = static_cast<char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  char text[37];
  const auto* u = reinterpret_cast<const unsigned char*>(b.data());
  std::snprintf(text, sizeof text,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
                u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
                u[15]);
  return text;
}

std::string random_name_suffix() {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string b = random_bytes(5);
  std::string out;
  for (char c : b) {
    out.push_back(kAlphabet[static_cast<unsigned char>(c) % (sizeof(kAlphabet) - 1)]);
  }
  return out;
}

NameRule name_rule_for(const std::string& group, const std::string& resource) {
  if (group.empty() && (resource == "namespaces")) {
    return NameRule::Dns1123Label;
  }
  if (group.empty() && (resource == "services" || resource == "replicationcontrollers")) {
    return NameRule::Dns1035Label;
  }
  if (group == "rbac.authorization.k8s.io") {
    return NameRule::PathSegment;
  }
  return NameRule::Dns1123Subdomain;
}

std::string check_name(const std::string& name, NameRule rule) {
  std::string out;
  for (const auto& p : name_problems(name, rule, false)) {
    out += (out.empty() ? "" : ", ") + p;
  }
  return out;
}

std::vector<std::string> name_problems(const std::string& input, NameRule rule, bool prefix) {
  static const std::regex label("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  static const std::regex subdomain("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  static const std::regex dns1035("[a-z]([-a-z0-9]*[a-z0-9])?");
  std::string name = input;
  // A generateName prefix may end in '-': upstream masks the trailing dash before checking.
  if (prefix && rule != NameRule::PathSegment && !name.empty() && name.back() == '-') {
    name.back() = 'a';
  }
  std::vector<std::string> problems;
  switch (rule) {
    case NameRule::Dns1123Subdomain:
      if (name.size() > 253) {
        problems.push_back("must be no more than 253 characters");
      }
      if (!std::regex_match(name, subdomain)) {
        problems.push_back(kSubdomainText);
      }
      break;
    case NameRule::Dns1123Label:
      if (name.size() > 63) {
        problems.push_back("must be no more than 63 characters");
      }
      if (!std::regex_match(name, label)) {
        problems.push_back(kLabelText);
      }
      break;
    case NameRule::Dns1035Label:
      if (name.size() > 63) {
        problems.push_back("must be no more than 63 characters");
      }
      if (!std::regex_match(name, dns1035)) {
        problems.push_back(kDns1035Text);
      }
      break;
    case NameRule::PathSegment:
      // path.IsValidPathSegmentName; a generateName prefix only gets the content checks.
      if (!prefix && (name == "." || name == "..")) {
        problems.push_back("may not be '" + name + "'");
      }
      for (const char* bad : {"/", "%"}) {
        if (name.find(bad) != std::string::npos) {
          problems.push_back(std::string("may not contain '") + bad + "'");
        }
      }
      break;
  }
  return problems;
}

FieldError invalid_value(const std::string& field, const std::string& value,
                         const std::string& detail) {
  return {"FieldValueInvalid", field,
          "Invalid value: " + nlohmann::json(value).dump() + ": " + detail};
}

FieldError required_value(const std::string& field, const std::string& detail) {
  return {"FieldValueRequired", field,
          detail.empty() ? "Required value" : "Required value: " + detail};
}

std::string render_field_errors(const std::vector<FieldError>& errors) {
  std::vector<std::string> rendered;
  std::set<std::string> seen;
  for (const auto& e : errors) {
    std::string text = e.field.empty() ? e.message : e.field + ": " + e.message;
    if (seen.insert(text).second) {
      rendered.push_back(text);
    }
  }
  if (rendered.size() == 1) {
    return rendered.front();
  }
  std::string out = "[";
  for (size_t i = 0; i < rendered.size(); ++i) {
    out += (i ? ", " : "") + rendered[i];
  }
  return out + "]";
}

bool tracks_generation(const std::string& group, const std::string& resource) {
  static const std::set<std::string> kTracked = {
      "apps/deployments",          "apps/replicasets",
      "apps/statefulsets",         "apps/daemonsets",
      "batch/jobs",                "batch/cronjobs",
      "/replicationcontrollers",   "networking.k8s.io/ingresses",
      "networking.k8s.io/networkpolicies", "policy/poddisruptionbudgets",
      "autoscaling/horizontalpodautoscalers",
      "apiextensions.k8s.io/customresourcedefinitions",
      "admissionregistration.k8s.io/validatingadmissionpolicies",
      "flowcontrol.apiserver.k8s.io/flowschemas",
      "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations",
  };
  return kTracked.count(group + "/" + resource) != 0;
}

namespace {

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool qualified_name_part(const std::string& s) {
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

const char* kQualifiedText =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

}  // namespace


FieldError invalid_rendered(const std::string& field, const std::string& rendered,
                            const std::string& detail) {
  return {"FieldValueInvalid", field,
          "Invalid value: " + rendered + (detail.empty() ? "" : ": " + detail)};
}

FieldError not_supported(const std::string& field, const std::string& rendered,
                         const std::vector<std::string>& supported) {
  std::string detail;
  for (const auto& v : supported) {
    detail += (detail.empty() ? "supported values: " : ", ") + go_quote(v);
  }
  return {"FieldValueNotSupported", field,
          "Unsupported value: " + rendered + (detail.empty() ? "" : ": " + detail)};
}

FieldError forbidden(const std::string& field, const std::string& detail) {
  return {"FieldValueForbidden", field, detail.empty() ? "Forbidden" : "Forbidden: " + detail};
}

FieldError duplicate(const std::string& field, const std::string& rendered) {
  return {"FieldValueDuplicate", field, "Duplicate value: " + rendered};
}

FieldError not_found(const std::string& field, const std::string& rendered) {
  return {"FieldValueNotFound", field, "Not found: " + rendered};
}

FieldError too_long(const std::string& field, size_t max_bytes) {
  return {"FieldValueTooLong", field,
          "Too long: must have at most " + std::to_string(max_bytes) + " bytes"};
}

std::vector<std::string> label_key_problems(const std::string& value) {
  std::vector<std::string> errs;
  std::string name = value;
  const size_t slash = value.find('/');
  if (slash != std::string::npos) {
    if (value.find('/', slash + 1) != std::string::npos) {
      errs.push_back(std::string("a qualified name ") + kQualifiedText +
                     " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    const std::string prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const auto& msg : name_problems(prefix, NameRule::Dns1123Subdomain, false)) {
        errs.push_back("prefix part " + msg);
      }
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part must be no more than 63 characters");
  }
  if (!qualified_name_part(name)) {
    errs.push_back(std::string("name part ") + kQualifiedText);
  }
  return errs;
}

std::vector<std::string> label_value_problems(const std::string& value) {
  std::vector<std::string> errs;
  if (value.size() > 63) {
    errs.push_back("must be no more than 63 characters");
  }
  if (!value.empty() && !qualified_name_part(value)) {
    errs.push_back(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
        "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
        "'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  }
  return errs;
}

std::vector<std::string> config_map_key_problems(const std::string& key) {
  std::vector<std::string> errs;
  if (key.size() > 253) {
    errs.push_back("must be no more than 253 characters");
  }
  bool ok = !key.empty();
  for (char c : key) {
    ok = ok && (alnum(c) || c == '-' || c == '.' || c == '_');
  }
  if (!ok) {
    errs.push_back(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
        "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
        "'[-._a-zA-Z0-9]+')");
  }
  if (key == ".") {
    errs.push_back("must not be '.'");
  } else if (key == "..") {
    errs.push_back("must not be '..'");
  } else if (key.rfind("..", 0) == 0) {
    errs.push_back("must not start with '..'");
  }
  return errs;
}

std::vector<std::string> port_name_problems(const std::string& port) {
  std::vector<std::string> errs;
  if (port.size() > 15) {
    errs.push_back("must be no more than 15 characters");
  }
  bool charset = !port.empty();
  bool letter = false;
  for (char c : port) {
    charset = charset && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-');
    letter = letter || (c >= 'a' && c <= 'z');
  }
  if (!charset) {
    errs.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  }
  if (!letter) {
    errs.push_back("must contain at least one letter (a-z)");
  }
  if (port.find("--") != std::string::npos) {
    errs.push_back("must not contain consecutive hyphens");
  }
  if (!port.empty() && (port.front() == '-' || port.back() == '-')) {
    errs.push_back("must not begin or end with a hyphen");
  }
  return errs;
}

}  // namespace apiserver::registry
