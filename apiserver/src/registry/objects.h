// Object metadata as kube-apiserver manages it: names, uids, timestamps, generateName, and the
// Invalid field errors of name validation, with upstream's texts.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "registry/go_text.h"
#include "registry/name_scanners.h"

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

// PathSegment: anything but "." and ".." without '/' or '%' (RBAC roles and bindings).
enum class NameRule { Dns1123Subdomain, Dns1123Label, Dns1035Label, PathSegment };
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

// ---- Field-validation building blocks (shared by registry/validation.cpp) ----
namespace apiserver::registry {

// Constructors for the other field.ErrorTypes. `rendered` is the bad value already printed the
// way field.Error prints it (go_quote for strings, bare for numbers, %#v for maps and structs).
FieldError invalid_rendered(const std::string& field, const std::string& rendered,
                            const std::string& detail);
FieldError not_supported(const std::string& field, const std::string& rendered,
                         const std::vector<std::string>& supported);
FieldError forbidden(const std::string& field, const std::string& detail);
FieldError duplicate(const std::string& field, const std::string& rendered);
FieldError not_found(const std::string& field, const std::string& rendered);
FieldError too_long(const std::string& field, size_t max_bytes);

// One message per problem (upstream emits one field error per message); the label, key and port
// checks are in registry/name_scanners.h.
std::vector<std::string> name_problems(const std::string& name, NameRule rule, bool prefix);

}  // namespace apiserver::registry
