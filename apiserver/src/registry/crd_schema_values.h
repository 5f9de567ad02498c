// Go's value model for custom resources, shared by the schema's validation and error texts.
//
// Values are classified as Go's JSON decoding into interface{} for unstructured objects does it:
// an integer that fits int64 is an int64, every other number a float64. kube-openapi's checks
// depend on that split (integer minimum truncation, enum conversion, unique items).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace apiserver::registry {

enum class Kind { Null, Bool, Int, Float, String, Array, Object };

Kind kind_of(const nlohmann::json& v);
int64_t as_int(const nlohmann::json& v);
double as_double(const nlohmann::json& v);

// Go's float64 -> int64 conversion for the values that occur here (truncation; saturating
// where Go's result is unspecified).
int64_t go_int64(double d);

// encoding/json's float64 text: 'f' unless the magnitude is below 1e-6 or at least 1e21.
std::string go_json_float(double v);

// Go's json.Marshal of a value decoded into interface{} (map keys sorted, as nlohmann keeps
// them). Without recursion: values nest as deep as a request allows.
std::string go_json(const nlohmann::json& v);

// A field.Error's bad value: strings %q, numbers and booleans %v, null "null", maps and slices
// %#v.
std::string render_value(const nlohmann::json& v);

// reflect.DeepEqual of decoded JSON: int64 and float64 never equal. Without recursion.
bool go_equal(const nlohmann::json& a, const nlohmann::json& b);

// kube-openapi's enum check: the value is converted to each enum value's Go type when Go allows
// the conversion (int64 <-> float64 with truncation, int64 -> string as a rune), then compared.
bool enum_matches(const nlohmann::json& data, const nlohmann::json& candidate);

// swag.IsFloat64AJSONInteger: a finite integral value within +-2^53.
bool is_json_integer(double f);

}  // namespace apiserver::registry
