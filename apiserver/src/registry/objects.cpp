#include "registry/objects.h"

#include <openssl/rand.h>

#include <cstdio>
#include <ctime>
#include <regex>
#include <set>

namespace apiserver::registry {
namespace {

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n));
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
  return NameRule::Dns1123Subdomain;
}

std::string check_name(const std::string& name, NameRule rule) {
  static const std::regex label("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  static const std::regex subdomain("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  static const std::regex dns1035("[a-z]([-a-z0-9]*[a-z0-9])?");
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
  }
  std::string out;
  for (const auto& p : problems) {
    out += (out.empty() ? "" : ", ") + p;
  }
  return out;
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

}  // namespace apiserver::registry
