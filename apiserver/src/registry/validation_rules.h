// The building blocks of object validation that many kinds share: reading fields of a decoded
// object, rendering values as Go's field.Error prints them, and the metadata, label, selector,
// quantity and int-or-percent rules. Pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "registry/objects.h"

namespace apiserver::registry::rules {

using nlohmann::json;

using Errors = std::vector<FieldError>;

inline constexpr const char* kImmutable = "field is immutable";

inline constexpr const char* kNegative = "must be greater than or equal to 0";

inline constexpr const char* kSelectorMismatch = "`selector` does not match template `labels`";

inline const std::vector<std::string> kProtocols = {"SCTP", "TCP", "UDP"};

const json& null_json();

const json& get(const json& j, const char* key);

std::string str(const json& j, const char* key);

bool present(const json& j, const char* key);

std::string index(const std::string& path, size_t i);

std::string key_of(const std::string& path, const std::string& key);

// Numbers print bare, strings %q, anything else as its JSON text.
std::string render_scalar(const json& v);

// Go %#v of a map[string]string; JSON null → nil map.
std::string go_string_map(const json& m);

// *metav1.LabelSelector as field.Error prints it: through its generated String() method.
std::string go_label_selector(const json& sel);

void validate_labels(const json& labels, const std::string& path, Errors& out);

void validate_annotations(const json& annotations, const std::string& path, Errors& out);

// `core`: the core API's rule on top of apimachinery's (a finalizer is standard or has a '/'); the
// apiextensions server (CRDs and custom resources) validates with apimachinery's alone.
void validate_finalizers(const json& finalizers, const std::string& path, bool core, Errors& out);
// An update of an object being deleted may only take finalizers away.
void validate_no_new_finalizers(const json& finalizers, const json& old_finalizers,
                                const std::string& path, Errors& out);

void validate_label_selector(const json& sel, const std::string& path, Errors& out);

bool selector_is_empty(const json& sel);

// metav1.LabelSelectorAsSelector(sel).Matches(labels); null selects nothing.
bool selector_matches(const json& sel, const json& labels);

std::string quantity_text(const json& q);

void validate_nonnegative(const json& spec, const char* key, const std::string& path, Errors& out);

// An intstr.IntOrString as field.Invalid prints it: String() has a pointer receiver, so the
// value falls back to %#v.
std::string go_int_or_string(const json& v);

// validation.IsValidPercent: [0-9]+%.
bool is_valid_percent(const std::string& s);

// getIntOrPercentValue: a valid percent's number, else IntValue() (Atoi of a string, whose
// failures count as 0 and whose overflow as the nearest int64, as Go's Atoi returns them).
int64_t int_or_percent_value(const json& v);

// ValidatePositiveIntOrPercent.
void validate_int_or_percent(const json& v, const std::string& path, Errors& out);

// IsNotMoreThan100Percent.
void validate_not_over_100_percent(const json& v, const std::string& path, Errors& out);

void validate_immutable_data(const json& obj, const json& old,
                             std::initializer_list<const char*> keys, Errors& out);

void validate_port_number(const json& port, const std::string& path, Errors& out);

void validate_protocol(const json& container, const std::string& path, Errors& out);

}  // namespace apiserver::registry::rules
