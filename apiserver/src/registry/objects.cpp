#include "registry/objects.h"

#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <set>

#include "common/rfc3339.h"

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

}  // namespace

std::string rfc3339(std::chrono::system_clock::time_point t) {
  return common::format_rfc3339(t);
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
  // APIServices too: the core group's is "v1." (kube-aggregator's path segment check).
  if (group == "rbac.authorization.k8s.io" || group == "apiregistration.k8s.io") {
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
  std::string_view name = input;
  std::string masked;
  // A generateName prefix may end in '-': upstream replaces the last two characters by an 'a'
  // before checking (maskTrailingDash).
  if (prefix && rule != NameRule::PathSegment && name.size() > 1 && name.back() == '-') {
    masked = std::string(name.substr(0, name.size() - 2)) + "a";
    name = masked;
  }
  switch (rule) {
    case NameRule::Dns1123Subdomain:
      return dns1123_subdomain_problems(name);
    case NameRule::Dns1123Label:
      return dns1123_label_problems(name);
    case NameRule::Dns1035Label:
      return dns1035_label_problems(name);
    case NameRule::PathSegment:
      break;
  }
  // path.IsValidPathSegmentName; a generateName prefix only gets the content checks.
  std::vector<std::string> problems;
  if (!prefix && (name == "." || name == "..")) {
    problems.push_back("may not be '" + input + "'");
  }
  for (const char* bad : {"/", "%"}) {
    if (name.find(bad) != std::string_view::npos) {
      problems.push_back(std::string("may not contain '") + bad + "'");
    }
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
      "apps/deployments",
      "apps/replicasets",
      "apps/statefulsets",
      "apps/daemonsets",
      "batch/jobs",
      "batch/cronjobs",
      "/replicationcontrollers",
      "networking.k8s.io/ingresses",
      "networking.k8s.io/networkpolicies",
      "policy/poddisruptionbudgets",
      "autoscaling/horizontalpodautoscalers",
      "apiextensions.k8s.io/customresourcedefinitions",
      "admissionregistration.k8s.io/validatingadmissionpolicies",
      "flowcontrol.apiserver.k8s.io/flowschemas",
      "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations",
  };
  return kTracked.count(group + "/" + resource) != 0;
}

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

}  // namespace apiserver::registry
