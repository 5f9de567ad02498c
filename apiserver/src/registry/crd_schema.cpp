// Structural schemas of custom resources, following apiextensions-apiserver v1.32
// (pkg/apiserver/schema/{pruning,defaulting,listtype}, pkg/apiserver/validation) and the
// kube-openapi validator it runs (pkg/validation/validate, pkg/validation/errors).
//
// Values are classified as Go's JSON decoding into interface{} for unstructured objects does it:
// an integer that fits int64 is an int64, every other number a float64. kube-openapi's checks
// depend on that split (integer minimum truncation, enum conversion, unique items).
#include "registry/crd_schema.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>

#include "registry/go_regexp.h"
#include "registry/go_text.h"
#include "registry/go_values.h"
#include "registry/schema_formats.h"
#include "registry/walk_depth.h"

namespace apiserver::registry {

using nlohmann::json;

struct CrdSchema::Node {
  std::vector<std::string> types;  // {"integer","string"} for x-kubernetes-int-or-string
  std::string format;              // as written; empty when upstream strips it
  bool nullable = false;
  bool preserve_unknown = false;
  bool embedded = false;
  std::optional<double> maximum;
  std::optional<double> minimum;
  std::optional<double> multiple_of;
  bool exclusive_maximum = false;
  bool exclusive_minimum = false;
  std::optional<int64_t> max_length;
  std::optional<int64_t> min_length;
  std::optional<int64_t> max_items;
  std::optional<int64_t> min_items;
  std::optional<int64_t> max_properties;
  std::optional<int64_t> min_properties;
  std::string pattern;
  std::optional<GoRegexp> regex;
  bool unique_items = false;
  std::optional<std::vector<nlohmann::json>> enum_values;
  std::vector<std::string> required;
  std::map<std::string, std::unique_ptr<Node>> properties;
  // additionalProperties: has_additional with a null schema is `additionalProperties: true`.
  bool has_additional = false;
  std::unique_ptr<Node> additional;
  std::unique_ptr<Node> items;
  std::optional<nlohmann::json> default_value;
  std::string list_type;
  std::vector<std::string> list_map_keys;

  const Node* property(const std::string& name) const {
    auto it = properties.find(name);
    return it == properties.end() ? nullptr : it->second.get();
  }
};

using Node = CrdSchema::Node;

namespace {

// ---- Go value model and printing ----

enum class Kind { Null, Bool, Int, Float, String, Array, Object };

Kind kind_of(const json& v) {
  switch (v.type()) {
    case json::value_t::boolean:
      return Kind::Bool;
    case json::value_t::number_integer:
      return Kind::Int;
    case json::value_t::number_unsigned:
      return v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                 ? Kind::Float
                 : Kind::Int;
    case json::value_t::number_float:
      return Kind::Float;
    case json::value_t::string:
      return Kind::String;
    case json::value_t::array:
      return Kind::Array;
    case json::value_t::object:
      return Kind::Object;
    default:
      return Kind::Null;
  }
}

int64_t as_int(const json& v) {
  return v.is_number_unsigned() ? static_cast<int64_t>(v.get<uint64_t>()) : v.get<int64_t>();
}

double as_double(const json& v) {
  return v.get<double>();
}

// Go's float64 -> int64 conversion for the values that occur here (truncation; saturating
// where Go's result is unspecified).
int64_t go_int64(double d) {
  if (std::isnan(d)) {
    return std::numeric_limits<int64_t>::min();
  }
  if (d >= 9.2233720368547758e18) {
    return std::numeric_limits<int64_t>::max();
  }
  if (d <= -9.2233720368547758e18) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(d);
}

// Shortest round-trip digits of |v| and the decimal point position (strconv's decimal form):
// 1500 -> ("15", 4), 0.05 -> ("5", -1).
void shortest_digits(double v, std::string& digits, int& dp) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::scientific);
  std::string text(buf, res.ptr);
  const size_t e = text.find('e');
  digits.clear();
  for (size_t i = 0; i < e; ++i) {
    if (text[i] != '.') {
      digits += text[i];
    }
  }
  // to_chars writes a well-formed exponent of at most three digits.
  int exp = 0;
  const char* first = text.data() + e + 1;
  first += *first == '+' ? 1 : 0;
  std::from_chars(first, text.data() + text.size(), exp);
  dp = exp + 1;
}

std::string format_e(bool neg, const std::string& digits, int dp, bool two_digit_exp) {
  std::string out = neg ? "-" : "";
  out += digits[0];
  if (digits.size() > 1) {
    out += '.';
    out += digits.substr(1);
  }
  int exp = dp - 1;
  out += exp < 0 ? "e-" : "e+";
  exp = std::abs(exp);
  if (exp < 10 && two_digit_exp) {
    out += '0';
  }
  out += std::to_string(exp);
  return out;
}

std::string format_f(bool neg, const std::string& digits, int dp) {
  std::string out = neg ? "-" : "";
  const int nd = static_cast<int>(digits.size());
  if (dp <= 0) {
    out += "0." + std::string(static_cast<size_t>(-dp), '0') + digits;
  } else if (dp >= nd) {
    out += digits + std::string(static_cast<size_t>(dp - nd), '0');
  } else {
    out += digits.substr(0, static_cast<size_t>(dp)) + "." + digits.substr(static_cast<size_t>(dp));
  }
  return out;
}

// encoding/json's float64 text: 'f' unless the magnitude is below 1e-6 or at least 1e21.
std::string go_json_float(double v) {
  if (v == 0) {
    return "0";
  }
  std::string digits;
  int dp = 0;
  shortest_digits(v, digits, dp);
  const double a = std::fabs(v);
  if (a < 1e-6 || a >= 1e21) {
    return format_e(v < 0, digits, dp, false);
  }
  return format_f(v < 0, digits, dp);
}

// Go's json.Marshal of a value decoded into interface{} (map keys sorted, as nlohmann keeps
// them). Without recursion: values nest as deep as a request allows.
std::string go_json(const json& v) {
  struct Frame {
    const json* value;
    json::const_iterator next;
  };
  std::string out;
  std::vector<Frame> stack;
  auto write = [&](const json& x) {
    switch (kind_of(x)) {
      case Kind::Null:
        out += "null";
        break;
      case Kind::Bool:
        out += x.get<bool>() ? "true" : "false";
        break;
      case Kind::Int:
        out += std::to_string(as_int(x));
        break;
      case Kind::Float:
        out += go_json_float(as_double(x));
        break;
      case Kind::String:
        out += go_json_string(x.get_ref<const std::string&>());
        break;
      case Kind::Array:
        out += '[';
        stack.push_back({&x, x.begin()});
        break;
      case Kind::Object:
        out += '{';
        stack.push_back({&x, x.begin()});
        break;
    }
  };
  write(v);
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == f.value->end()) {
      out += f.value->is_object() ? '}' : ']';
      stack.pop_back();
      continue;
    }
    if (f.next != f.value->begin()) {
      out += ',';
    }
    if (f.value->is_object()) {
      out += go_json_string(f.next.key()) + ":";
    }
    const json& item = *f.next;
    ++f.next;
    write(item);  // may grow the stack: `f` is not used after this
  }
  return out;
}

// A field.Error's bad value: strings %q, numbers and booleans %v, null "null", maps and slices
// %#v.
std::string render_value(const json& v) {
  switch (kind_of(v)) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
      return v.get<bool>() ? "true" : "false";
    case Kind::Int:
      return std::to_string(as_int(v));
    case Kind::Float:
      return go_format_float(as_double(v));
    case Kind::String:
      return go_quote(v.get<std::string>());
    default:
      return go_print(v, true);
  }
}

// reflect.DeepEqual of decoded JSON: int64 and float64 never equal. Without recursion.
bool go_equal(const json& a, const json& b) {
  std::vector<std::pair<const json*, const json*>> pending{{&a, &b}};
  while (!pending.empty()) {
    const auto [x, y] = pending.back();
    pending.pop_back();
    const Kind kx = kind_of(*x);
    if (kx != kind_of(*y)) {
      return false;
    }
    switch (kx) {
      case Kind::Int:
        if (as_int(*x) != as_int(*y)) {
          return false;
        }
        break;
      case Kind::Float:
        if (as_double(*x) != as_double(*y)) {
          return false;
        }
        break;
      case Kind::Array:
        if (x->size() != y->size()) {
          return false;
        }
        for (size_t i = 0; i < x->size(); ++i) {
          pending.emplace_back(&(*x)[i], &(*y)[i]);
        }
        break;
      case Kind::Object:
        if (x->size() != y->size()) {
          return false;
        }
        for (auto it = x->begin(); it != x->end(); ++it) {
          auto other = y->find(it.key());
          if (other == y->end()) {
            return false;
          }
          pending.emplace_back(&*it, &*other);
        }
        break;
      default:
        if (*x != *y) {
          return false;
        }
        break;
    }
  }
  return true;
}

// Go's string(rune(i)) for an int64 converted to string.
std::string go_rune_string(int64_t i) {
  std::string out;
  if (i < 0 || i > 0x10FFFF || (i >= 0xD800 && i <= 0xDFFF)) {
    append_utf8(out, 0xFFFD);
  } else {
    append_utf8(out, static_cast<char32_t>(i));
  }
  return out;
}

// kube-openapi's enum check: the value is converted to each enum value's Go type when Go allows
// the conversion (int64 <-> float64 with truncation, int64 -> string as a rune), then compared.
bool enum_matches(const json& data, const json& candidate) {
  const Kind kd = kind_of(data);
  const Kind kc = kind_of(candidate);
  if (kc == Kind::Null || kd == Kind::Null) {
    return false;
  }
  if (kd == Kind::Int && kc == Kind::Float) {
    return static_cast<double>(as_int(data)) == as_double(candidate);
  }
  if (kd == Kind::Float && kc == Kind::Int) {
    return go_int64(as_double(data)) == as_int(candidate);
  }
  if (kd == Kind::Int && kc == Kind::String) {
    return go_rune_string(as_int(data)) == candidate.get<std::string>();
  }
  return go_equal(data, candidate);
}

size_t rune_count(const std::string& s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size();) {
    size_t width = 1;
    decode_rune(s, i, width);
    i += width;
    ++n;
  }
  return n;
}

// swag.IsFloat64AJSONInteger: a finite integral value within +-2^53.
bool is_json_integer(double f) {
  return std::isfinite(f) && std::fabs(f) <= 9007199254740992.0 && f == std::trunc(f);
}

// ---- parsing ----

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

bool flag(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

// `field_error`, when not null, gets the failures upstream's CRD validation reports as field
// errors (an invalid pattern).
std::unique_ptr<Node> parse_node(const json& j, const std::string& where, std::string& error,
                                 FieldError* field_error);

bool parse_count(const json& j, const char* key, std::optional<int64_t>& out,
                 const std::string& where, std::string& error) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return true;
  }
  if (kind_of(*it) != Kind::Int || as_int(*it) < 0) {
    error = where + "." + key + ": must be a non-negative integer";
    return false;
  }
  out = as_int(*it);
  return true;
}

bool parse_number(const json& j, const char* key, std::optional<double>& out,
                  const std::string& where, std::string& error) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return true;
  }
  if (!it->is_number()) {
    error = where + "." + key + ": must be a number";
    return false;
  }
  out = as_double(*it);
  return true;
}

// Appends j[key], when present and not null, to `out` as strings; false with `error` set when it
// is not an array of strings.
bool read_strings(const json& j, const char* key, const std::string& where,
                  std::vector<std::string>& out, std::string& error) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return true;
  }
  if (!it->is_array() ||
      !std::all_of(it->begin(), it->end(), [](const json& v) { return v.is_string(); })) {
    error = where + "." + key + ": must be an array of strings";
    return false;
  }
  for (const auto& v : *it) {
    out.push_back(v.get<std::string>());
  }
  return true;
}

std::unique_ptr<Node> parse_node(const json& j, const std::string& where, std::string& error,
                                 FieldError* field_error) {
  if (!j.is_object()) {
    error = where + ": must be an object";
    return nullptr;
  }
  if (j.contains("$ref")) {
    error = where + ".$ref: not allowed in a structural schema";
    return nullptr;
  }
  auto node = std::make_unique<Node>();
  node->nullable = flag(j, "nullable");
  node->preserve_unknown = flag(j, "x-kubernetes-preserve-unknown-fields");
  node->embedded = flag(j, "x-kubernetes-embedded-resource");
  const bool int_or_string = flag(j, "x-kubernetes-int-or-string");

  std::string type;
  if (auto it = j.find("type"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) {
      error = where + ".type: must be a string";
      return nullptr;
    }
    type = it->get<std::string>();
  }
  static const std::set<std::string> kTypes = {"object",  "array",  "string",
                                               "integer", "number", "boolean"};
  if (!type.empty() && kTypes.count(type) == 0) {
    error = where + ".type: unsupported type \"" + type + "\"";
    return nullptr;
  }
  if (int_or_string) {
    // The validator sees x-kubernetes-int-or-string as type [integer, string].
    node->types = {"integer", "string"};
  } else if (!type.empty()) {
    node->types = {type};
  } else if (!node->preserve_unknown) {
    error = where + ".type: must not be empty for specified fields";
    return nullptr;
  }
  if (node->embedded && type != "object") {
    error = where + ".type: must be object if x-kubernetes-embedded-resource is true";
    return nullptr;
  }

  if (auto it = j.find("format"); it != j.end() && it->is_string()) {
    // Upstream strips formats it does not support before validating.
    const std::string format = it->get<std::string>();
    if (is_supported_format(format)) {
      node->format = format;
    }
  }

  if (!parse_number(j, "maximum", node->maximum, where, error) ||
      !parse_number(j, "minimum", node->minimum, where, error) ||
      !parse_number(j, "multipleOf", node->multiple_of, where, error) ||
      !parse_count(j, "maxLength", node->max_length, where, error) ||
      !parse_count(j, "minLength", node->min_length, where, error) ||
      !parse_count(j, "maxItems", node->max_items, where, error) ||
      !parse_count(j, "minItems", node->min_items, where, error) ||
      !parse_count(j, "maxProperties", node->max_properties, where, error) ||
      !parse_count(j, "minProperties", node->min_properties, where, error)) {
    return nullptr;
  }
  node->exclusive_maximum = flag(j, "exclusiveMaximum");
  node->exclusive_minimum = flag(j, "exclusiveMinimum");
  node->unique_items = flag(j, "uniqueItems");

  if (auto it = j.find("pattern"); it != j.end() && it->is_string()) {
    node->pattern = it->get<std::string>();
    std::string compile_error;
    node->regex = GoRegexp::compile(node->pattern, compile_error);
    if (!node->regex) {
      const FieldError invalid =
          invalid_rendered(where + ".pattern", go_quote(node->pattern),
                           "must be a valid regular expression, but isn't: " + compile_error);
      error = invalid.field + ": " + invalid.message;
      if (field_error != nullptr) {
        *field_error = invalid;
      }
      return nullptr;
    }
  }

  if (auto it = j.find("enum"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) {
      error = where + ".enum: must be an array";
      return nullptr;
    }
    node->enum_values = std::vector<json>(it->begin(), it->end());
  }

  if (!read_strings(j, "required", where, node->required, error)) {
    return nullptr;
  }

  if (auto it = j.find("default"); it != j.end()) {
    node->default_value = *it;
  }

  if (auto it = j.find("properties"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) {
      error = where + ".properties: must be an object";
      return nullptr;
    }
    for (const auto& [name, sub] : it->items()) {
      auto child = parse_node(sub, where + ".properties[" + name + "]", error, field_error);
      if (!child) {
        return nullptr;
      }
      node->properties.emplace(name, std::move(child));
    }
  }

  if (auto it = j.find("additionalProperties"); it != j.end() && !it->is_null()) {
    if (j.contains("properties")) {
      error = where +
              ".additionalProperties: properties and additionalProperties are mutually "
              "exclusive";
      return nullptr;
    }
    if (it->is_boolean()) {
      if (!it->get<bool>()) {
        error = where + ".additionalProperties: false is not allowed";
        return nullptr;
      }
      node->has_additional = true;
    } else {
      node->additional = parse_node(*it, where + ".additionalProperties", error, field_error);
      if (!node->additional) {
        return nullptr;
      }
      node->has_additional = true;
    }
  }

  if (auto it = j.find("items"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) {
      error = where + ".items: must be a single schema";
      return nullptr;
    }
    node->items = parse_node(*it, where + ".items", error, field_error);
    if (!node->items) {
      return nullptr;
    }
  } else if (type == "array") {
    error = where + ".items: must be specified for type array";
    return nullptr;
  }

  if (auto it = j.find("x-kubernetes-list-type"); it != j.end() && !it->is_null()) {
    const std::string list_type = it->is_string() ? it->get<std::string>() : "";
    if (list_type != "atomic" && list_type != "set" && list_type != "map") {
      error = where + ".x-kubernetes-list-type: must be atomic, set or map";
      return nullptr;
    }
    node->list_type = list_type;
  }
  if (!read_strings(j, "x-kubernetes-list-map-keys", where, node->list_map_keys, error)) {
    return nullptr;
  }
  if (node->list_type == "map" && node->list_map_keys.empty()) {
    error = where + ".x-kubernetes-list-map-keys: must not be empty if list type is map";
    return nullptr;
  }
  return node;
}

// ---- pruning (pkg/apiserver/schema/pruning) ----

bool is_meta_field(const std::string& key) {
  return key == "apiVersion" || key == "kind" || key == "metadata";
}

struct Pruner {
  std::vector<std::string> pruned;
  std::string path;
  int depth = 0;  // upstream's "parent path not empty": keys may be empty strings

  void record(const std::string& key) { pruned.push_back(depth > 0 ? path + "." + key : key); }

  // Runs `f` with `key` appended to the path, as upstream's appendKey.
  template <typename F>
  void with_key(const std::string& key, F f) {
    const size_t saved = path.size();
    if (depth > 0) {
      path += '.';
    }
    path += key;
    ++depth;
    f();
    --depth;
    path.resize(saved);
  }

  template <typename F>
  void with_index(size_t i, F f) {
    const size_t saved = path.size();
    path += "[" + std::to_string(i) + "]";
    ++depth;
    f();
    --depth;
    path.resize(saved);
  }

  // embedded_override: the resource root counts as an embedded resource.
  void prune(json& x, const Node* s, bool embedded_override = false) {
    const WalkDepth level;
    if (level.exceeded()) {
      return;  // validate() refuses what lies deeper
    }
    if (s != nullptr && s->preserve_unknown) {
      skip_prune(x, s, embedded_override);
      return;
    }
    if (x.is_object()) {
      std::vector<std::string> drop;
      for (auto it = x.begin(); it != x.end(); ++it) {
        const std::string& key = it.key();
        if (s == nullptr) {
          record(key);
          drop.push_back(key);
          continue;
        }
        if ((s->embedded || embedded_override) && is_meta_field(key)) {
          continue;
        }
        if (const Node* prop = s->property(key)) {
          with_key(key, [&] { prune(it.value(), prop); });
        } else if (s->has_additional) {
          with_key(key, [&] { prune(it.value(), s->additional.get()); });
        } else {
          if (!is_meta_field(key) || depth > 0) {
            record(key);
          }
          drop.push_back(key);
        }
      }
      for (const auto& key : drop) {
        x.erase(key);
      }
    } else if (x.is_array()) {
      const Node* items = s == nullptr ? nullptr : s->items.get();
      for (size_t i = 0; i < x.size(); ++i) {
        with_index(i, [&] { prune(x[i], items); });
      }
    }
  }

  // Under x-kubernetes-preserve-unknown-fields: unknown fields stay, known ones are pruned by
  // their schemas.
  void skip_prune(json& x, const Node* s, bool embedded_override = false) {
    const WalkDepth level;
    if (s == nullptr || level.exceeded()) {
      return;
    }
    if (x.is_object()) {
      for (auto it = x.begin(); it != x.end(); ++it) {
        const std::string& key = it.key();
        if ((s->embedded || embedded_override) && is_meta_field(key)) {
          continue;
        }
        if (const Node* prop = s->property(key)) {
          with_key(key, [&] { prune(it.value(), prop); });
        } else if (s->has_additional) {
          with_key(key, [&] { prune(it.value(), s->additional.get()); });
        }
      }
    } else if (x.is_array()) {
      for (size_t i = 0; i < x.size(); ++i) {
        with_index(i, [&] { skip_prune(x[i], s->items.get()); });
      }
    }
  }
};

const Node* schema_for_field(const std::string& key, const Node* s) {
  if (s == nullptr) {
    return nullptr;
  }
  if (const Node* prop = s->property(key)) {
    return prop;
  }
  return s->has_additional ? s->additional.get() : nullptr;
}

// defaulting.PruneNonNullableNullsWithoutDefaults.
void prune_nulls(json& x, const Node* s) {
  const WalkDepth depth;
  if (depth.exceeded()) {
    return;
  }
  if (x.is_object()) {
    std::vector<std::string> drop;
    for (auto it = x.begin(); it != x.end(); ++it) {
      const Node* sub = schema_for_field(it.key(), s);
      if (it->is_null() && sub != nullptr && !sub->nullable && !sub->default_value) {
        drop.push_back(it.key());
      } else {
        prune_nulls(it.value(), sub);
      }
    }
    for (const auto& key : drop) {
      x.erase(key);
    }
  } else if (x.is_array()) {
    const Node* items = s == nullptr ? nullptr : s->items.get();
    for (auto& item : x) {
      prune_nulls(item, items);
    }
  }
}

// ---- defaulting (pkg/apiserver/schema/defaulting) ----

bool non_nullable_null(const json& x, const Node* s) {
  return x.is_null() && s != nullptr && !s->nullable;
}

void apply_default(json& x, const Node* s) {
  const WalkDepth depth;
  if (s == nullptr || depth.exceeded()) {
    return;
  }
  if (x.is_object()) {
    for (const auto& [key, prop] : s->properties) {
      if (!prop->default_value) {
        continue;
      }
      auto it = x.find(key);
      if (it == x.end() || non_nullable_null(*it, prop.get())) {
        x[key] = *prop->default_value;
      }
    }
    for (auto it = x.begin(); it != x.end(); ++it) {
      if (const Node* prop = s->property(it.key())) {
        apply_default(it.value(), prop);
      } else if (s->has_additional) {
        const Node* add = s->additional.get();
        if (non_nullable_null(it.value(), add)) {
          // Upstream then defaults the old (null) value, i.e. nothing further.
          it.value() = add->default_value.value_or(json());
        } else {
          apply_default(it.value(), add);
        }
      }
    }
  } else if (x.is_array()) {
    const Node* items = s->items.get();
    for (auto& item : x) {
      if (non_nullable_null(item, items)) {
        item = items->default_value.value_or(json());
      } else {
        apply_default(item, items);
      }
    }
  }
}

// ---- validation (kube-openapi validate + the CR strategy's error conversion) ----

struct Validator {
  std::vector<FieldError>& errs;

  // The CR strategy's field path: the validator's name without its leading '.'; a nil path
  // prints as "<nil>".
  static std::string field_of(const std::string& name) {
    if (name.empty() || name == ".") {
      return "<nil>";
    }
    return name[0] == '.' ? name.substr(1) : name;
  }

  void type_invalid(const std::string& name, const std::string& type_name,
                    const std::string& actual) {
    errs.push_back({"FieldValueTypeInvalid", field_of(name),
                    "Invalid value: " + go_quote(actual) + ": " + name +
                        " in body must be of type " + type_name + ": " + go_quote(actual)});
  }

  void invalid(const std::string& name, const std::string& rendered, const std::string& detail) {
    errs.push_back(invalid_rendered(field_of(name), rendered, detail));
  }

  // field.TooMany; the singular "item" for a maximum of 1 is text unverified.
  void too_many(const std::string& name, int64_t actual, int64_t max) {
    errs.push_back({"FieldValueTooMany", field_of(name),
                    "Too many: " + std::to_string(actual) + ": must have at most " +
                        std::to_string(max) + (max == 1 ? " item" : " items")});
  }

  void enum_fail(const Node& n, const std::string& name, const json& data) {
    std::vector<std::string> values;
    for (const auto& v : *n.enum_values) {
      values.push_back(v.is_string() ? v.get<std::string>() : go_json(v));
    }
    errs.push_back(not_supported(field_of(name), render_value(data), values));
  }

  void check_type(const Node& n, const std::string& name, const json& data, Kind k) {
    std::string sch_type;
    std::string data_format;
    switch (k) {
      case Kind::Bool:
        sch_type = "boolean";
        break;
      case Kind::Int:
        sch_type = "integer";
        data_format = "int64";
        break;
      case Kind::Float:
        sch_type = "number";
        data_format = "float64";
        break;
      case Kind::String:
        sch_type = "string";
        break;
      case Kind::Array:
        sch_type = "array";
        break;
      default:
        sch_type = "object";
        break;
    }
    const bool is_float_int =
        k == Kind::Float && is_json_integer(as_double(data)) && contains(n.types, "integer");
    const bool is_int_float = k == Kind::Int && contains(n.types, "number");
    const bool listed = contains(n.types, sch_type);
    if (k != Kind::String && k != Kind::Array && !n.format.empty() &&
        !(listed || data_format == n.format || is_float_int || is_int_float)) {
      type_invalid(name, n.format, data_format);
      return;
    }
    // A formatted non-numeric schema takes any string or list without a type check.
    if (!(contains(n.types, "number") || contains(n.types, "integer")) && !n.format.empty() &&
        (k == Kind::String || k == Kind::Array)) {
      return;
    }
    if (!(listed || is_float_int || is_int_float)) {
      type_invalid(name, join(n.types, ","), sch_type);
    }
  }

  void check_string(const Node& n, const std::string& name, const std::string& s) {
    // kube-openapi's string validator stops at its first failure. maxLength becomes
    // field.TooLongMaxLength, which v1.32 words as field.TooLong (text unverified for a maximum
    // of 1 byte).
    if (n.max_length && static_cast<int64_t>(rune_count(s)) > *n.max_length) {
      errs.push_back({"FieldValueTooLong", field_of(name),
                      "Too long: may not be more than " + std::to_string(*n.max_length) +
                          (*n.max_length == 1 ? " byte" : " bytes")});
      return;
    }
    if (n.min_length && static_cast<int64_t>(rune_count(s)) < *n.min_length) {
      invalid(
          name, go_quote(s),
          name + " in body should be at least " + std::to_string(*n.min_length) + " chars long");
      return;
    }
    if (n.regex && !n.regex->matches(s)) {
      invalid(name, go_quote(s), name + " in body should match '" + n.pattern + "'");
    }
  }

  void check_format(const Node& n, const std::string& name, const std::string& s) {
    if (n.format.empty() || format_valid(n.format, s)) {
      return;
    }
    errs.push_back({"FieldValueTypeInvalid", field_of(name),
                    "Invalid value: " + go_quote(s) + ": " + name + " in body must be of type " +
                        n.format + ": " + go_quote(s)});
  }

  void check_number(const Node& n, const std::string& name, const json& data, Kind k) {
    const std::string rendered = render_value(data);
    const bool is_int = k == Kind::Int;
    // Bounds are float64 in the schema; against an int64 value they are truncated to int64.
    auto bound = [&](double b) {
      return is_int ? std::to_string(go_int64(b)) : go_format_float(b);
    };
    if (n.multiple_of) {
      const double factor = *n.multiple_of;
      if (factor < 0) {
        invalid(name, bound(factor),
                "factor MultipleOf declared for " + name + " must be positive: " + bound(factor));
      } else if (is_int) {
        const int64_t f = go_int64(factor);
        if (f != 0 && as_int(data) % f != 0) {
          invalid(name, rendered, name + " in body should be a multiple of " + bound(factor));
        }
      } else if (factor > 0) {
        const double d = as_double(data);
        const double mult = factor < 1 ? 1 / factor * d : d / factor;
        if (!is_json_integer(mult)) {
          invalid(name, rendered, name + " in body should be a multiple of " + bound(factor));
        }
      }
    }
    if (n.minimum) {
      const bool excl = n.exclusive_minimum;
      const bool fails =
          is_int
              ? (excl ? as_int(data) <= go_int64(*n.minimum) : as_int(data) < go_int64(*n.minimum))
              : (excl ? as_double(data) <= *n.minimum : as_double(data) < *n.minimum);
      if (fails) {
        invalid(name, rendered,
                name +
                    (excl ? " in body should be greater than "
                          : " in body should be greater than or equal to ") +
                    bound(*n.minimum));
      }
    }
    if (n.maximum) {
      const bool excl = n.exclusive_maximum;
      const bool fails =
          is_int
              ? (excl ? as_int(data) >= go_int64(*n.maximum) : as_int(data) > go_int64(*n.maximum))
              : (excl ? as_double(data) >= *n.maximum : as_double(data) > *n.maximum);
      if (fails) {
        invalid(name, rendered,
                name +
                    (excl ? " in body should be less than "
                          : " in body should be less than or equal to ") +
                    bound(*n.maximum));
      }
    }
  }

  void check_array(const Node& n, const std::string& name, const json& data) {
    if (n.items) {
      for (size_t i = 0; i < data.size(); ++i) {
        check(*n.items, name + "[" + std::to_string(i) + "]", data[i]);
      }
    }
    const auto size = static_cast<int64_t>(data.size());
    if (n.min_items && size < *n.min_items) {
      invalid(name, std::to_string(size),
              name + " in body should have at least " + std::to_string(*n.min_items) + " items");
    }
    if (n.max_items && size > *n.max_items) {
      too_many(name, size, *n.max_items);
    }
    if (n.unique_items) {
      for (size_t i = 1; i < data.size(); ++i) {
        bool dup = false;
        for (size_t j = 0; j < i && !dup; ++j) {
          dup = go_equal(data[i], data[j]);
        }
        if (dup) {
          invalid(name, "\"\"", name + " in body shouldn't contain duplicates");
          break;
        }
      }
    }
  }

  void check_object(const Node& n, const std::string& name, const json& data) {
    const auto count = static_cast<int64_t>(data.size());
    // The bad value shown for minProperties is the actual count (text unverified).
    if (n.min_properties && count < *n.min_properties) {
      invalid(name, std::to_string(count),
              name + " in body should have at least " + std::to_string(*n.min_properties) +
                  " properties");
      return;
    }
    if (n.max_properties && count > *n.max_properties) {
      too_many(name, count, *n.max_properties);
      return;
    }
    if (n.additional) {
      for (const auto& [key, value] : data.items()) {
        if (n.property(key) == nullptr) {
          check(*n.additional, name + "." + key, value);
        }
      }
    }
    for (const auto& [key, prop] : n.properties) {
      auto it = data.find(key);
      if (it != data.end()) {
        check(*prop, name.empty() ? key : name + "." + key, *it);
      }
    }
    for (const auto& key : n.required) {
      if (!data.contains(key)) {
        errs.push_back(required_value(field_of(name + "." + key), ""));
      }
    }
  }

  void check(const Node& n, const std::string& name, const json& data) {
    const WalkDepth depth;
    if (depth.exceeded()) {
      errs.push_back(forbidden(field_of(name),
                               "nests deeper than " + std::to_string(kMaxWalkDepth) + " levels"));
      return;
    }
    const Kind k = kind_of(data);
    if (k == Kind::Null) {
      // Only the type and enum validators look at null.
      if (!n.types.empty() && !contains(n.types, "null") && !n.nullable) {
        type_invalid(name, join(n.types, ","), "null");
      }
      if (n.enum_values) {
        enum_fail(n, name, data);
      }
      return;
    }
    if (!n.types.empty() || !n.format.empty()) {
      check_type(n, name, data, k);
    }
    if (k == Kind::String) {
      check_string(n, name, data.get<std::string>());
      check_format(n, name, data.get<std::string>());
    }
    if (k == Kind::Int || k == Kind::Float) {
      check_number(n, name, data, k);
    }
    if (k == Kind::Array) {
      check_array(n, name, data);
    }
    if (n.enum_values) {
      bool found = false;
      for (const auto& candidate : *n.enum_values) {
        if (enum_matches(data, candidate)) {
          found = true;
          break;
        }
      }
      if (!found) {
        enum_fail(n, name, data);
      }
    }
    if (k == Kind::Object) {
      check_object(n, name, data);
    }
  }
};

// ---- x-kubernetes-list-type (pkg/apiserver/schema/listtype) ----

struct ListTypeValidator {
  std::vector<FieldError>& errs;

  static std::string child(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string index(const std::string& path, size_t i) {
    return path + "[" + std::to_string(i) + "]";
  }

  // A value's identity as a Go map key: scalars as themselves (int64 1 and float64 1 differ),
  // compound values by their JSON text.
  static std::string identity(const json& x) {
    switch (kind_of(x)) {
      case Kind::Array:
      case Kind::Object:
        return "c" + go_json(x);
      case Kind::Int:
        return "i" + std::to_string(as_int(x));
      case Kind::Float:
        return "f" + go_json_float(as_double(x));
      case Kind::String:
        return "s" + x.get<std::string>();
      case Kind::Bool:
        return x.get<bool>() ? "btrue" : "bfalse";
      case Kind::Null:
        break;
    }
    return "n";
  }

  // Indices of the second appearance of each repeated identity.
  static std::vector<size_t> non_unique(const std::vector<std::string>& keys) {
    std::map<std::string, int> seen;
    std::vector<size_t> out;
    if (keys.size() <= 1) {
      return out;
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      if (++seen[keys[i]] == 2) {
        out.push_back(i);
      }
    }
    return out;
  }

  void object(const std::string& path, const Node* s, const json& obj) {
    if (s == nullptr || !obj.is_object()) {
      return;
    }
    if (s->additional) {
      for (const auto& [key, value] : obj.items()) {
        value_of(path + "[" + key + "]", s->additional.get(), value);
      }
    }
    if (!s->properties.empty()) {
      for (const auto& [key, value] : obj.items()) {
        if (const Node* sub = s->property(key)) {
          value_of(child(path, key), sub, value);
        }
      }
    }
  }

  void value_of(const std::string& path, const Node* s, const json& v) {
    const WalkDepth depth;
    if (s == nullptr || depth.exceeded()) {
      return;
    }
    if (v.is_array()) {
      array(path, *s, v);
    } else if (v.is_object()) {
      object(path, s, v);
    }
  }

  void array(const std::string& path, const Node& s, const json& arr) {
    if (s.list_type == "set") {
      std::vector<std::string> keys;
      for (const auto& item : arr) {
        keys.push_back(identity(item));
      }
      for (size_t i : non_unique(keys)) {
        errs.push_back(duplicate(index(path, i), render_value(arr[i])));
      }
    } else if (s.list_type == "map") {
      list_map(path, s, arr);
    }
    if (s.items) {
      for (size_t i = 0; i < arr.size(); ++i) {
        value_of(index(path, i), s.items.get(), arr[i]);
      }
    }
  }

  void list_map(const std::string& path, const Node& s, const json& arr) {
    for (size_t i = 0; i < arr.size(); ++i) {
      if (!arr[i].is_null() && !arr[i].is_object()) {
        errs.push_back(invalid_rendered(index(path, i), render_value(arr[i]),
                                        "must be an object for an array of list-type map"));
        return;
      }
    }
    if (arr.size() <= 1) {
      return;
    }
    if (s.list_map_keys.size() == 1) {
      // A missing key (or a null item) is its own value, distinct from every JSON value.
      const std::string& key_field = s.list_map_keys[0];
      std::vector<std::string> keys;
      for (const auto& x : arr) {
        auto it = x.is_object() ? x.find(key_field) : x.end();
        keys.push_back(!x.is_object() || it == x.end() ? "u" : "v" + identity(*it));
      }
      for (size_t i : non_unique(keys)) {
        const json& x = arr[i];
        auto it = x.is_object() ? x.find(key_field) : x.end();
        const bool missing = !x.is_object() || it == x.end();
        errs.push_back(duplicate(index(path, i), missing ? go_print(json::object(), true)
                                                         : key_map_text(key_field, *it)));
      }
      return;
    }
    // Several keys: the map of the fields present, compared by its JSON text.
    std::vector<std::string> keys;
    for (const auto& x : arr) {
      std::string key = "{";
      for (const auto& field : sorted(s.list_map_keys)) {
        if (auto it = x.is_object() ? x.find(field) : x.end(); x.is_object() && it != x.end()) {
          key += (key.size() > 1 ? "," : "") + go_json_string(field) + ":" + go_json(*it);
        }
      }
      keys.push_back(key + "}");
    }
    for (size_t i : non_unique(keys)) {
      std::string shown;
      for (const auto& field : sorted(s.list_map_keys)) {
        const json& x = arr[i];
        if (auto it = x.is_object() ? x.find(field) : x.end(); x.is_object() && it != x.end()) {
          const std::string one = key_map_text(field, *it);
          // "map[string]interface {}{" + entry + "}": keep the entry only.
          shown += (shown.empty() ? "" : ", ") + one.substr(24, one.size() - 25);
        }
      }
      errs.push_back(duplicate(index(path, i), "map[string]interface {}{" + shown + "}"));
    }
  }

  // %#v of map[string]interface{}{field: value}, without copying the value.
  static std::string key_map_text(const std::string& field, const json& value) {
    return "map[string]interface {}{" + go_quote(field) + ":" + go_print(value, true) + "}";
  }

  static std::vector<std::string> sorted(std::vector<std::string> fields) {
    std::sort(fields.begin(), fields.end());
    fields.erase(std::unique(fields.begin(), fields.end()), fields.end());
    return fields;
  }
};

}  // namespace

std::string go_format_float(double value) {
  if (value == 0) {
    return std::signbit(value) ? "-0" : "0";
  }
  if (std::isinf(value)) {
    return value > 0 ? "+Inf" : "-Inf";
  }
  if (std::isnan(value)) {
    return "NaN";
  }
  std::string digits;
  int dp = 0;
  shortest_digits(value, digits, dp);
  const int exp = dp - 1;
  // %v is %g with the shortest digits, switching to an exponent below 1e-4 and from 1e6 on.
  if (exp < -4 || exp >= 6) {
    return format_e(value < 0, digits, dp, true);
  }
  return format_f(value < 0, digits, dp);
}

std::optional<CrdSchema> CrdSchema::parse(const nlohmann::json& open_api_v3_schema,
                                          std::string& error, FieldError* field_error) {
  if (json_depth(open_api_v3_schema, kMaxSchemaDepth) > kMaxSchemaDepth) {
    error = "openAPIV3Schema: nests deeper than " + std::to_string(kMaxSchemaDepth) + " levels";
    return std::nullopt;
  }
  auto root = parse_node(open_api_v3_schema, "openAPIV3Schema", error, field_error);
  if (!root) {
    return std::nullopt;
  }
  if (root->types != std::vector<std::string>{"object"}) {
    error = "openAPIV3Schema.type: must be object at the root";
    return std::nullopt;
  }
  CrdSchema schema;
  schema.root_ = std::shared_ptr<const Node>(std::move(root));
  schema.source_ = std::make_shared<const nlohmann::json>(open_api_v3_schema);
  return schema;
}

std::vector<std::string> CrdSchema::prune(nlohmann::json& object) const {
  Pruner pruner;
  pruner.prune(object, root_.get(), /*embedded_override=*/true);
  prune_nulls(object, root_.get());
  std::sort(pruner.pruned.begin(), pruner.pruned.end());
  return pruner.pruned;
}

void CrdSchema::apply_defaults(nlohmann::json& object) const {
  apply_default(object, root_.get());
}

std::vector<FieldError> CrdSchema::validate(const nlohmann::json& object) const {
  std::vector<FieldError> errs;
  Validator{errs}.check(*root_, "", object);
  ListTypeValidator{errs}.object("", root_.get(), object);
  return errs;
}

const nlohmann::json& CrdSchema::json() const {
  return *source_;
}

}  // namespace apiserver::registry
