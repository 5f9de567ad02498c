// Object metadata as kube-apiserver manages it: names, uids, timestamps, generateName, and the
// Invalid field errors of name validation, with upstream's texts.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace apiserver::registry {

// One cause of a 422 Invalid: reason (FieldValueInvalid, FieldValueRequired, ...), the field
// path, and the message as kube-apiserver renders it.
struct FieldError {
  std::string reason;
  std::string field;
  std::string message;  // e.g. `Invalid value: "A": a lowercase RFC 1123 ...`
};

std::string rfc3339(std::chrono::system_clock::time_point t);
std::string new_uid();
// generateName suffix: 5 characters from upstream's alphabet (no vowels, no confusable digits).
std::string random_name_suffix();

enum class NameRule { Dns1123Subdomain, Dns1123Label, Dns1035Label };
NameRule name_rule_for(const std::string& group, const std::string& resource);
// Empty when valid; else the reason text (without the field path or value).
std::string check_name(const std::string& name, NameRule rule);

// `<field>: <type text>[: <value>][: <detail>]` errors joined as kube-apiserver does.
std::string render_field_errors(const std::vector<FieldError>& errors);
FieldError invalid_value(const std::string& field, const std::string& value,
                         const std::string& detail);
FieldError required_value(const std::string& field, const std::string& detail);

// Whether kube-apiserver keeps metadata.generation for objects of this resource (and bumps it
// on spec changes).
bool tracks_generation(const std::string& group, const std::string& resource);

}  // namespace apiserver::registry
