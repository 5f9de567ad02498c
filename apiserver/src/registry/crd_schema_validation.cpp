// Validation of custom resources against their structural schema: kube-openapi's validator with
// the CR strategy's error conversion, then the x-kubernetes-list-type checks
// (pkg/apiserver/schema/listtype), in the order CrdSchema::validate reports them.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "registry/crd_schema.h"
#include "registry/crd_schema_node.h"
#include "registry/crd_schema_ratcheting.h"
#include "registry/crd_schema_values.h"
#include "registry/go_text.h"
#include "registry/objects.h"
#include "registry/schema_formats.h"
#include "registry/walk_depth.h"

namespace apiserver::registry {

using nlohmann::json;
using Node = CrdSchema::Node;

namespace {

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// ---- validation (kube-openapi validate + the CR strategy's error conversion) ----

struct Validator {
  std::vector<FieldError>& errs;
  // On update: which new values are unchanged, shared by every check of one object.
  UnchangedMemo& memo;
  // How many checks ran, as kube-openapi's MatchCount: of the failing anyOf/oneOf schemas, the
  // errors of the one that matched most are reported.
  int matches = 0;

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

  void check_array(const Node& n, const std::string& name, const json& data,
                   const Correlation* corr) {
    if (n.items) {
      for (size_t i = 0; i < data.size(); ++i) {
        auto child = corr ? correlate_index(*corr, data, i) : std::nullopt;
        check(*n.items, name + "[" + std::to_string(i) + "]", data[i], child ? &*child : nullptr);
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

  // The correlation of data[key], but for kind and apiVersion at the root (never ratcheted).
  static std::optional<Correlation> child_of(const Correlation* corr, const std::string& name,
                                             const json& data, const std::string& key) {
    if (corr == nullptr || (name.empty() && (key == "kind" || key == "apiVersion"))) {
      return std::nullopt;
    }
    return correlate_key(*corr, data, key);
  }

  void check_object(const Node& n, const std::string& name, const json& data,
                    const Correlation* corr) {
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
          auto child = child_of(corr, name, data, key);
          check(*n.additional, name + "." + key, value, child ? &*child : nullptr);
        }
      }
    }
    for (const auto& [key, prop] : n.properties) {
      auto it = data.find(key);
      if (it != data.end()) {
        auto child = child_of(corr, name, data, key);
        check(*prop, name.empty() ? key : name + "." + key, *it, child ? &*child : nullptr);
      }
    }
    for (const auto& key : n.required) {
      if (!data.contains(key)) {
        errs.push_back(required_value(field_of(name + "." + key), ""));
      }
    }
  }

  // Validates `data` with `n`. With `corr` (the old value correlated, on update) the errors are
  // dropped when the value is unchanged, as upstream's ratcheting validator does per value.
  void check(const Node& n, const std::string& name, const json& data, const Correlation* corr) {
    const size_t before = errs.size();
    check_value(n, name, data, corr);
    if (corr != nullptr && errs.size() > before && unchanged(*corr, data, memo)) {
      errs.resize(before);
    }
  }

  // One schema on one value, in kube-openapi's validator order: type, allOf/anyOf/oneOf/not,
  // string, format, number, array, enum, object.
  void check_value(const Node& n, const std::string& name, const json& data,
                   const Correlation* corr) {
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
    ++matches;
    if (!n.types.empty() || !n.format.empty()) {
      check_type(n, name, data, k);
    }
    if (n.has_junctors()) {
      check_junctors(n, name, data, corr);
    }
    if (k == Kind::String) {
      check_string(n, name, data.get<std::string>());
      check_format(n, name, data.get<std::string>());
    }
    if (k == Kind::Int || k == Kind::Float) {
      check_number(n, name, data, k);
    }
    if (k == Kind::Array) {
      check_array(n, name, data, corr);
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
      check_object(n, name, data, corr);
    }
  }

  // The result of one junctor schema on the value (kube-openapi validates it apart).
  struct Outcome {
    std::vector<FieldError> errs;
    int matches = 0;
  };
  Outcome run(const Node& n, const std::string& name, const json& data, const Correlation* corr) {
    Outcome out;
    Validator sub{out.errs, memo};
    sub.check_value(n, name, data, corr);
    out.matches = sub.matches;
    return out;
  }

  void merge(Outcome&& o) {
    matches += o.matches;
    errs.insert(errs.end(), std::make_move_iterator(o.errs.begin()),
                std::make_move_iterator(o.errs.end()));
  }

  // A junctor's own error: not a kube-openapi field error, so the CR strategy reports it on the
  // nil path with an empty value.
  void composite(const std::string& text) {
    errs.push_back(invalid_rendered("<nil>", "\"\"", text));
  }

  // The index of the failing outcome that matched most (the first among equals).
  static size_t best_of(const std::vector<Outcome>& outcomes) {
    size_t best = 0;
    for (size_t i = 1; i < outcomes.size(); ++i) {
      if (outcomes[i].matches > outcomes[best].matches) {
        best = i;
      }
    }
    return best;
  }

  void check_junctors(const Node& n, const std::string& name, const json& data,
                      const Correlation* corr) {
    const std::string quoted = go_quote(name);
    if (!n.any_of.empty()) {
      std::vector<Outcome> failed;
      bool passed = false;
      for (const auto& sub : n.any_of) {
        Outcome o = run(*sub, name, data, corr);
        if (o.errs.empty()) {
          passed = true;
          merge(std::move(o));
          break;
        }
        failed.push_back(std::move(o));
      }
      if (!passed) {
        composite(quoted + " must validate at least one schema (anyOf)");
        merge(std::move(failed[best_of(failed)]));
      }
    }
    if (!n.one_of.empty()) {
      std::vector<Outcome> failed;
      std::optional<Outcome> first_success;
      int valid = 0;
      for (const auto& sub : n.one_of) {
        Outcome o = run(*sub, name, data, corr);
        if (o.errs.empty()) {
          ++valid;
          if (!first_success) {
            first_success = std::move(o);
          }
        } else if (valid == 0) {
          failed.push_back(std::move(o));
        }
      }
      if (valid != 1) {
        composite(quoted + " must validate one and only one schema (oneOf). " +
                  (valid == 0 ? std::string("Found none valid")
                              : "Found " + std::to_string(valid) + " valid alternatives"));
        if (valid == 0) {
          merge(std::move(failed[best_of(failed)]));
        }
      } else {
        merge(std::move(*first_success));
      }
    }
    if (!n.all_of.empty()) {
      size_t valid = 0;
      for (const auto& sub : n.all_of) {
        Outcome o = run(*sub, name, data, corr);
        valid += o.errs.empty() ? 1 : 0;
        merge(std::move(o));
      }
      if (valid != n.all_of.size()) {
        composite(quoted + " must validate all the schemas (allOf)" +
                  (valid == 0 ? ". None validated" : ""));
      }
    }
    if (n.not_schema && run(*n.not_schema, name, data, corr).errs.empty()) {
      composite(quoted + " must not validate the schema (not)");
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

// kube-openapi's result keeps each error text once.
void drop_repeats(std::vector<FieldError>& errs) {
  std::vector<FieldError> kept;
  std::set<std::pair<std::string, std::string>> seen;
  for (auto& e : errs) {
    if (seen.insert({e.field, e.message}).second) {
      kept.push_back(std::move(e));
    }
  }
  errs = std::move(kept);
}

}  // namespace

std::vector<FieldError> CrdSchema::validate(const nlohmann::json& object) const {
  std::vector<FieldError> errs;
  UnchangedMemo memo;
  Validator{errs, memo}.check(*root_, "", object, nullptr);
  drop_repeats(errs);
  ListTypeValidator{errs}.object("", root_.get(), object);
  return errs;
}

std::vector<FieldError> CrdSchema::validate_update(const nlohmann::json& object,
                                                   const nlohmann::json& old) const {
  std::vector<FieldError> errs;
  const Correlation root{&old, root_.get()};
  UnchangedMemo memo;
  Validator{errs, memo}.check(*root_, "", object, &root);
  drop_repeats(errs);
  // List-type errors are ratcheted whole: none are reported while the old object has some.
  std::vector<FieldError> old_list_errors;
  ListTypeValidator{old_list_errors}.object("", root_.get(), old);
  if (old_list_errors.empty()) {
    ListTypeValidator{errs}.object("", root_.get(), object);
  }
  return errs;
}

}  // namespace apiserver::registry
