#include "endpoints/patch/strategic_merge.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "endpoints/patch/deep_stack.h"
#include "registry/go_text.h"

// The structure follows upstream's patch.go function by function (mergeMap,
// mergePatchIntoOriginal, mergeSlice, normalizeElementOrder, ...), because error precedence and
// list order are observable and fall out of that structure. Go semantics this relies on, and how
// they are reproduced:
// - interface equality (`==` on interface{}): same dynamic type and value; int64 vs float64
//   differ; comparing two maps or two slices panics (go_equal);
// - map[interface{}] keys: a map or slice key panics (require_hashable);
// - a panic unwinds the request: the first one is recorded and turned into SmpErrorKind::Panic;
// - sort.SliceStable with upstream's inconsistent less function (go_slice_stable);
// - slices sharing a backing array: deleting list items with $patch: delete shifts the live list
//   in place and appends reuse the freed tail, which the caller's view of the live list (the
//   serverOrder of $setElementOrder) still sees (merge_slice's alias_view).

namespace apiserver::endpoints::patch {
namespace {

using nlohmann::json;
using Status = std::optional<SmpError>;
using Items = std::vector<json>;

constexpr std::string_view kDirectiveMarker = "$patch";
constexpr std::string_view kDeleteDirective = "delete";
constexpr std::string_view kReplaceDirective = "replace";
constexpr std::string_view kMergeDirective = "merge";
constexpr std::string_view kRetainKeysStrategy = "retainKeys";
constexpr std::string_view kRetainKeysDirective = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList";
constexpr std::string_view kSetElementOrderPrefix = "$setElementOrder";

constexpr std::string_view kErrBadPatchFormatForPrimitiveList =
    "invalid patch format of primitive list";
constexpr std::string_view kErrBadPatchFormatForRetainKeys = "invalid patch format of retainKeys";
constexpr std::string_view kErrBadPatchFormatForSetElementOrderList =
    "invalid patch format of setElementOrder list";
constexpr std::string_view kErrNoListOfLists = "lists of lists are not supported";
constexpr std::string_view kGoMapType = "map[string]interface {}";
constexpr std::string_view kGoSliceType = "[]interface {}";

SmpError bad_request(std::string_view message) {
  return SmpError{SmpErrorKind::BadRequest, std::string(message)};
}
SmpError internal(std::string message) {
  return SmpError{SmpErrorKind::Internal, std::move(message)};
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool is_string(const json& v, std::string_view s) {
  return v.is_string() && v.get_ref<const std::string&>() == s;
}

// ---- Go values -------------------------------------------------------------------------------

// The dynamic Go type a decoded JSON value has (UnmarshalCaseSensitivePreserveInts /
// ToUnstructured): integers are int64, other numbers float64.
enum class GoType { Nil, Map, Slice, String, Int64, Float64, Bool };

bool fits_int64(const json& v) {
  return !v.is_number_unsigned() ||
         v.get<std::uint64_t>() <=
             static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
}

GoType go_type(const json& v) {
  switch (v.type()) {
    case json::value_t::object:
      return GoType::Map;
    case json::value_t::array:
      return GoType::Slice;
    case json::value_t::string:
      return GoType::String;
    case json::value_t::boolean:
      return GoType::Bool;
    case json::value_t::number_integer:
      return GoType::Int64;
    case json::value_t::number_unsigned:
      return fits_int64(v) ? GoType::Int64 : GoType::Float64;
    case json::value_t::number_float:
      return GoType::Float64;
    default:
      return GoType::Nil;
  }
}

// reflect.TypeOf(v) printed with %s; a nil interface prints as %!s(<nil>).
std::string go_type_name(const json& v) {
  switch (go_type(v)) {
    case GoType::Map:
      return std::string(kGoMapType);
    case GoType::Slice:
      return std::string(kGoSliceType);
    case GoType::String:
      return "string";
    case GoType::Int64:
      return "int64";
    case GoType::Float64:
      return "float64";
    case GoType::Bool:
      return "bool";
    case GoType::Nil:
      break;
  }
  return "%!s(<nil>)";
}

// strconv.FormatFloat(f, 'g', -1, 64), which fmt's %v uses: shortest digits, exponent form when
// the exponent is < -4 or >= 6 (the precision fmt assumes for the shortest form).
std::string go_float(double f) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific);
  if (ec != std::errc()) {
    return "NaN";
  }
  std::string sci(buf, end);  // e.g. "-1.2345e+06"
  std::string sign;
  if (!sci.empty() && sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  int exp = std::atoi(sci.c_str() + e + 1);
  if (auto dot = digits.find('.'); dot != std::string::npos) {
    digits.erase(dot, 1);
  }
  if (exp < -4 || exp >= 6) {
    std::string out = sign + digits.substr(0, 1);
    if (digits.size() > 1) {
      out += "." + digits.substr(1);
    }
    int abs_exp = exp < 0 ? -exp : exp;
    out += exp < 0 ? "e-" : "e+";
    if (abs_exp < 10) {
      out += "0";
    }
    return out + std::to_string(abs_exp);
  }
  if (exp < 0) {
    return sign + "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  }
  size_t int_digits = static_cast<size_t>(exp) + 1;
  if (digits.size() <= int_digits) {
    return sign + digits + std::string(int_digits - digits.size(), '0');
  }
  return sign + digits.substr(0, int_digits) + "." + digits.substr(int_digits);
}

// fmt's rendering of a decoded JSON value with verb 'v' or 's' (maps print their keys sorted),
// appended to `out` (one buffer for the whole value: deep values render in linear time).
void go_sprint_into(std::string& out, const json& v, char verb) {
  auto bad_verb = [&out, verb](const char* type, const std::string& text) {
    out += verb == 's' ? "%!s(" + std::string(type) + "=" + text + ")" : text;
  };
  switch (v.type()) {
    case json::value_t::null:
      out += verb == 's' ? "%!s(<nil>)" : "<nil>";
      return;
    case json::value_t::string:
      out += v.get_ref<const std::string&>();
      return;
    case json::value_t::boolean:
      bad_verb("bool", v.get<bool>() ? "true" : "false");
      return;
    case json::value_t::number_integer:
      bad_verb("int64", std::to_string(v.get<std::int64_t>()));
      return;
    case json::value_t::number_unsigned:
      if (fits_int64(v)) {
        bad_verb("int64", std::to_string(v.get<std::uint64_t>()));
      } else {
        bad_verb("float64", go_float(static_cast<double>(v.get<std::uint64_t>())));
      }
      return;
    case json::value_t::number_float:
      bad_verb("float64", go_float(v.get<double>()));
      return;
    case json::value_t::array: {
      out += '[';
      for (size_t i = 0; i < v.size(); ++i) {
        if (i != 0) {
          out += ' ';
        }
        go_sprint_into(out, v[i], verb);
      }
      out += ']';
      return;
    }
    case json::value_t::object: {
      out += "map[";
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) {
          out += ' ';
        }
        out += it.key();
        out += ':';
        go_sprint_into(out, it.value(), verb);
        first = false;
      }
      out += ']';
      return;
    }
    default:
      return;
  }
}

std::string go_sprint(const json& v, char verb) {
  std::string out;
  go_sprint_into(out, v, verb);
  return out;
}

std::string go_sprint_items(const Items& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i != 0) {
      out += ' ';
    }
    go_sprint_into(out, items[i], 'v');
  }
  return out + "]";
}

SmpError err_no_merge_key(const json& m, const std::string& key) {
  return internal("map: " + go_sprint(m, 'v') + " does not contain declared merge key: " + key);
}

// mergepatch.ErrBadArgType(expected, actual).
SmpError err_bad_arg_type(std::string_view expected, const json& actual) {
  return internal("expected a " + std::string(expected) + ", but received a " +
                  go_type_name(actual));
}

SmpError err_bad_patch_type(const json& directive, const json& m) {
  return internal("unknown patch type: " + go_sprint(directive, 's') +
                  " in map: " + go_sprint(m, 'v'));
}

Items elements(const json& list) {
  Items out;
  if (list.is_array()) {
    out.reserve(list.size());
    for (const json& v : list) {
      out.push_back(v);
    }
  }
  return out;
}

json to_array(Items items) {
  json out = json::array();
  for (json& v : items) {
    out.push_back(std::move(v));
  }
  return out;
}

// sort.SliceStable: insertion sort on blocks of 20, then SymMerge. Reproduced step by step
// because upstream's less function is not a strict weak order when an item is missing from the
// order list, so the outcome depends on the algorithm.
class GoStableSort {
 public:
  GoStableSort(Items& data, std::function<bool(const json&, const json&)> less)
      : data_(data), less_items_(std::move(less)) {}

  void run() {
    int n = static_cast<int>(data_.size());
    int block = 20;
    int a = 0;
    int b = block;
    while (b <= n) {
      insertion_sort(a, b);
      a = b;
      b += block;
    }
    insertion_sort(a, n);
    while (block < n) {
      a = 0;
      b = 2 * block;
      while (b <= n) {
        sym_merge(a, a + block, b);
        a = b;
        b += 2 * block;
      }
      if (int m = a + block; m < n) {
        sym_merge(a, m, n);
      }
      block *= 2;
    }
  }

 private:
  bool less(int i, int j) {
    return less_items_(data_[static_cast<size_t>(i)], data_[static_cast<size_t>(j)]);
  }
  void swap(int i, int j) {
    std::swap(data_[static_cast<size_t>(i)], data_[static_cast<size_t>(j)]);
  }

  void insertion_sort(int a, int b) {
    for (int i = a + 1; i < b; ++i) {
      for (int j = i; j > a && less(j, j - 1); --j) {
        swap(j, j - 1);
      }
    }
  }

  void swap_range(int a, int b, int n) {
    for (int i = 0; i < n; ++i) {
      swap(a + i, b + i);
    }
  }

  void rotate(int a, int m, int b) {
    int i = m - a;
    int j = b - m;
    while (i != j) {
      if (i > j) {
        swap_range(m - i, m, j);
        i -= j;
      } else {
        swap_range(m - i, m + j - i, i);
        j -= i;
      }
    }
    swap_range(m - i, m, i);
  }

  void sym_merge(int a, int m, int b) {
    if (m - a == 1) {
      int i = m;
      int j = b;
      while (i < j) {
        int h = static_cast<int>(static_cast<unsigned>(i + j) >> 1);
        if (less(h, a)) {
          i = h + 1;
        } else {
          j = h;
        }
      }
      for (int k = a; k < i - 1; ++k) {
        swap(k, k + 1);
      }
      return;
    }
    if (b - m == 1) {
      int i = a;
      int j = m;
      while (i < j) {
        int h = static_cast<int>(static_cast<unsigned>(i + j) >> 1);
        if (!less(m, h)) {
          i = h + 1;
        } else {
          j = h;
        }
      }
      for (int k = m; k > i; --k) {
        swap(k, k - 1);
      }
      return;
    }
    int mid = static_cast<int>(static_cast<unsigned>(a + b) >> 1);
    int n = mid + m;
    int start = 0;
    int r = 0;
    if (m > mid) {
      start = n - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    int p = n - 1;
    while (start < r) {
      int c = static_cast<int>(static_cast<unsigned>(start + r) >> 1);
      if (!less(p - c, c)) {
        start = c + 1;
      } else {
        r = c;
      }
    }
    int end = n - start;
    if (start < m && m < end) {
      rotate(start, m, end);
    }
    if (a < start && start < mid) {
      sym_merge(a, start, mid);
    }
    if (mid < end && end < b) {
      sym_merge(mid, end, b);
    }
  }

  Items& data_;
  std::function<bool(const json&, const json&)> less_items_;
};

// ---- Schema: PatchMetaFromStruct over the OpenAPI facts --------------------------------------

// A Go type as far as the facts tell: a schema node (unresolved, so extensions next to a $ref
// stay visible) and the Go type name for error texts. node == nullptr: nothing known.
struct GoSchema {
  const json* node = nullptr;
  std::string name;
};

struct PatchMeta {
  std::vector<std::string> strategies;
  std::string merge_key;
};

struct Lookup {
  GoSchema sub;
  PatchMeta meta;
};

enum class SchemaKind { Unknown, Struct, OpaqueStruct, Map, Slice, Scalar };

std::string name_of(const json* node) {
  if (node == nullptr || !node->is_object()) {
    return "";
  }
  if (auto ref = node->find("$ref"); ref != node->end() && ref->is_string()) {
    const std::string& s = ref->get_ref<const std::string&>();
    return s.substr(s.rfind('.') + 1);
  }
  if (auto gvk = node->find("x-kubernetes-group-version-kind");
      gvk != node->end() && gvk->is_array() && !gvk->empty() && (*gvk)[0].is_object()) {
    return (*gvk)[0].value("kind", std::string());
  }
  return "";
}

bool ascii_equal_fold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> split_strategies(const json* extension) {
  std::vector<std::string> out;
  if (extension == nullptr || !extension->is_string()) {
    return out;
  }
  const std::string& s = extension->get_ref<const std::string&>();
  size_t start = 0;
  while (true) {
    size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) {
      return out;
    }
    start = comma + 1;
  }
}

// extractRetainKeysPatchStrategy: the strategy other than retainKeys.
std::variant<std::string, SmpError> patch_strategy(const PatchMeta& meta) {
  const auto& s = meta.strategies;
  switch (s.size()) {
    case 0:
      return std::string();
    case 1:
      return s[0] == kRetainKeysStrategy ? std::string() : s[0];
    case 2:
      if (s[0] == kRetainKeysStrategy) {
        return s[1];
      }
      if (s[1] == kRetainKeysStrategy) {
        return s[0];
      }
      break;
    default:
      break;
  }
  std::string list = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    list += (i == 0 ? "" : " ") + s[i];
  }
  return internal("unexpected patch strategy: " + list + "]");
}

// ---- The merge ---------------------------------------------------------------------------------

// discardNullValuesFromPatch: null map members go, recursively (null list items stay).
void discard_nulls(json& value) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      if (it->is_null()) {
        it = value.erase(it);
      } else {
        discard_nulls(*it);
        ++it;
      }
    }
  } else if (value.is_array()) {
    for (json& item : value) {
      discard_nulls(item);
    }
  }
}

// removeDirectives: false when `value` is itself a map holding $patch; otherwise such maps are
// dropped from inside it, recursively.
bool remove_directives(json& value) {
  if (value.is_object()) {
    if (value.contains(kDirectiveMarker)) {
      return false;
    }
    for (auto it = value.begin(); it != value.end();) {
      it = remove_directives(*it) ? std::next(it) : value.erase(it);
    }
  } else if (value.is_array()) {
    json kept = json::array();
    for (json& item : value) {
      if (remove_directives(item)) {
        kept.push_back(std::move(item));
      }
    }
    value = std::move(kept);
  }
  return true;
}

class Merger {
 public:
  explicit Merger(const registry::SchemaIndex& index) : index_(index) {}

  const std::optional<std::string>& panic_message() const { return panic_; }

  // mergeMap: merges `patch` into `original` in place.
  Status merge_map(json& original, json patch, const GoSchema& schema) {
    if (auto marker = patch.find(kDirectiveMarker); marker != patch.end()) {
      if (is_string(*marker, kReplaceDirective)) {
        patch.erase(marker);
        original = std::move(patch);
        return {};
      }
      if (is_string(*marker, kDeleteDirective)) {
        original = json::object();
        return {};
      }
      return err_bad_patch_type(*marker, patch);
    }
    if (!original.is_object()) {
      original = json::object();
    }
    if (Status s = apply_retain_keys(original, patch)) {
      return s;
    }
    if (Status s = merge_patch_into_original(original, patch, schema)) {
      return s;
    }
    for (auto it = patch.begin(); it != patch.end(); ++it) {
      std::string key = it.key();
      bool is_delete_list = false;
      if (starts_with(key, kDeleteFromPrimitiveListPrefix)) {
        auto extracted = extract_key(key, kDeleteFromPrimitiveListPrefix);
        if (auto* e = std::get_if<SmpError>(&extracted)) {
          return *e;
        }
        is_delete_list = true;
        if (auto& k = std::get<std::string>(extracted); !k.empty()) {
          key = k;
        }
      }
      json& value = it.value();
      if (value.is_null()) {
        original.erase(key);
        continue;
      }
      auto found = original.find(key);
      if (found == original.end() || go_type(*found) != go_type(value)) {
        // The patch value replaces: without its nulls and directives. A deletion list for a
        // field the original lacks (or holds as another type) does nothing.
        if (!is_delete_list) {
          discard_nulls(value);
          if (remove_directives(value)) {
            original[key] = std::move(value);
          } else {
            original.erase(key);
          }
        }
        continue;
      }
      GoType type = go_type(*found);
      if (type == GoType::Map) {
        auto lookup = lookup_struct(schema, key, /*strict=*/false);
        if (auto* e = std::get_if<SmpError>(&lookup)) {
          return *e;
        }
        const Lookup& l = std::get<Lookup>(lookup);
        auto strategy = patch_strategy(l.meta);
        if (auto* e = std::get_if<SmpError>(&strategy)) {
          return *e;
        }
        if (std::get<std::string>(strategy) == kReplaceDirective) {
          *found = std::move(value);
        } else if (Status s = merge_map(*found, std::move(value), l.sub)) {
          return s;
        }
      } else if (type == GoType::Slice) {
        auto lookup = lookup_slice(schema, key, /*strict=*/false);
        if (auto* e = std::get_if<SmpError>(&lookup)) {
          return *e;
        }
        const Lookup& l = std::get<Lookup>(lookup);
        auto strategy = patch_strategy(l.meta);
        if (auto* e = std::get_if<SmpError>(&strategy)) {
          return *e;
        }
        if (Status s = merge_slice_handler(*found, std::move(value), l.sub,
                                           std::get<std::string>(strategy), l.meta.merge_key,
                                           is_delete_list, nullptr)) {
          return s;
        }
      } else {
        *found = std::move(value);
      }
    }
    return {};
  }

 private:
  // ---- Go runtime behaviour ----

  SmpError panic(std::string message) {
    if (!panic_) {
      panic_ = std::move(message);
    }
    return SmpError{SmpErrorKind::Panic, *panic_};
  }
  Status panicked() const {
    if (panic_) {
      return SmpError{SmpErrorKind::Panic, *panic_};
    }
    return {};
  }

  // `a == b` on two interface{} values.
  bool go_equal(const json& a, const json& b) {
    GoType ta = go_type(a);
    if (ta != go_type(b)) {
      return false;
    }
    switch (ta) {
      case GoType::Map:
      case GoType::Slice:
        panic("runtime error: comparing uncomparable type " + go_type_name(a));
        return false;
      case GoType::Nil:
        return true;
      case GoType::String:
        return a.get_ref<const std::string&>() == b.get_ref<const std::string&>();
      case GoType::Bool:
        return a.get<bool>() == b.get<bool>();
      case GoType::Int64:
        return a.get<std::int64_t>() == b.get<std::int64_t>();
      case GoType::Float64:
        return a.get<double>() == b.get<double>();
    }
    return false;
  }

  // Using `v` as a key of a Go map.
  void require_hashable(const json& v) {
    GoType t = go_type(v);
    if (t == GoType::Map || t == GoType::Slice) {
      panic("runtime error: hash of unhashable type " + go_type_name(v));
    }
  }

  // ---- Schema lookups (forkedjson.LookupPatchMetadataForStruct and PatchMetaFromStruct) ----

  SchemaKind classify(const GoSchema& s) const {
    const json* r = index_.resolve(s.node);
    if (r == nullptr || !r->is_object()) {
      return SchemaKind::Unknown;
    }
    if (r->contains("properties")) {
      return SchemaKind::Struct;
    }
    if (auto ap = r->find("additionalProperties"); ap != r->end() && ap->is_object()) {
      return SchemaKind::Map;
    }
    std::string type = index_.type(s.node);
    if (type == "array") {
      return SchemaKind::Slice;
    }
    if (type == "object" || type.empty()) {
      // A named definition without fields is a Go struct whose fields are all hidden from JSON
      // (RawExtension, FieldsV1, apiextensions JSON): every lookup in it fails.
      return s.node->contains("$ref") ? SchemaKind::OpaqueStruct : SchemaKind::Unknown;
    }
    return SchemaKind::Scalar;
  }

  // reflect.Kind.String() of the Go type, for "cannot merge lists without merge key for %s".
  std::string kind_name(const GoSchema& s) const {
    switch (classify(s)) {
      case SchemaKind::Struct:
      case SchemaKind::OpaqueStruct:
        return "struct";
      case SchemaKind::Map:
        return "map";
      case SchemaKind::Slice:
        return "slice";
      case SchemaKind::Unknown:
        return "interface";
      case SchemaKind::Scalar:
        break;
    }
    if (s.node->contains("$ref")) {
      return "struct";  // Quantity, Time, IntOrString
    }
    std::string type = index_.type(s.node);
    const json* r = index_.resolve(s.node);
    std::string format = r->value("format", std::string());
    if (type == "integer") {
      return format == "int32" ? "int32" : "int64";
    }
    if (type == "number") {
      return format == "float" ? "float32" : "float64";
    }
    if (type == "boolean") {
      return "bool";
    }
    return "string";
  }

  // The field `key` of struct or map `parent`. strict: a struct without that field is an error
  // (upstream always); otherwise it is "nothing known" — used where upstream's original, a typed
  // object, could not hold the key at all.
  std::variant<Lookup, SmpError> lookup_struct(const GoSchema& parent, const std::string& key,
                                               bool strict) const {
    SchemaKind kind = classify(parent);
    if (kind == SchemaKind::Map) {
      const json* value = index_.additional_properties(parent.node);
      return Lookup{GoSchema{value, name_of(value)}, {}};
    }
    if (kind != SchemaKind::Struct && kind != SchemaKind::OpaqueStruct) {
      return Lookup{};
    }
    const json* field = nullptr;
    if (kind == SchemaKind::Struct) {
      field = index_.property(parent.node, key);
      if (field == nullptr) {
        const json& properties = index_.resolve(parent.node)->at("properties");
        for (auto it = properties.begin(); properties.is_object() && it != properties.end(); ++it) {
          if (ascii_equal_fold(it.key(), key)) {
            field = &it.value();
            break;
          }
        }
      }
    }
    if (field == nullptr) {
      if (!strict && kind == SchemaKind::Struct) {
        return Lookup{};
      }
      return internal("unable to find api field in struct " + parent.name + " for the json field " +
                      registry::go_quote(key));
    }
    Lookup out{GoSchema{field, name_of(field)}, {}};
    out.meta.strategies = split_strategies(index_.extension(field, "x-kubernetes-patch-strategy"));
    if (const json* mk = index_.extension(field, "x-kubernetes-patch-merge-key");
        mk != nullptr && mk->is_string()) {
      out.meta.merge_key = mk->get<std::string>();
    }
    return out;
  }

  // PatchMetaFromStruct.LookupPatchMetadataForSlice: the field must be a slice; returns its
  // element type.
  std::variant<Lookup, SmpError> lookup_slice(const GoSchema& parent, const std::string& key,
                                              bool strict) const {
    auto field = lookup_struct(parent, key, strict);
    if (std::holds_alternative<SmpError>(field)) {
      return field;
    }
    Lookup l = std::get<Lookup>(std::move(field));
    if (l.sub.node == nullptr) {
      return l;
    }
    if (classify(l.sub) != SchemaKind::Slice) {
      if (!strict) {
        return Lookup{};
      }
      return internal("expected slice or array type, but got: " +
                      std::string(classify(parent) == SchemaKind::Map ? "map" : "struct"));
    }
    const json* item = index_.items(l.sub.node);
    GoSchema elem{item, name_of(item)};
    if (item != nullptr && classify(elem) == SchemaKind::Slice) {
      return internal("unexpected slice of slice");
    }
    l.sub = elem;
    return l;
  }

  // ---- Directives ----

  static std::variant<std::string, SmpError> extract_key(const std::string& s,
                                                         std::string_view prefix) {
    size_t slash = s.find('/');
    if (slash == std::string::npos || std::string_view(s).substr(0, slash) != prefix) {
      return bad_request(prefix == kDeleteFromPrimitiveListPrefix
                             ? kErrBadPatchFormatForPrimitiveList
                             : kErrBadPatchFormatForSetElementOrderList);
    }
    return s.substr(slash + 1);
  }

  // applyRetainKeysDirective.
  Status apply_retain_keys(json& original, json& patch) {
    auto it = patch.find(kRetainKeysDirective);
    if (it == patch.end()) {
      return {};
    }
    json retain = std::move(*it);
    patch.erase(it);
    if (!retain.is_array()) {
      return bad_request(kErrBadPatchFormatForRetainKeys);
    }
    for (const json& v : retain) {
      require_hashable(v);
    }
    if (Status s = panicked()) {
      return s;
    }
    auto listed = [&retain](const std::string& key) {
      for (const json& v : retain) {
        if (is_string(v, key)) {
          return true;
        }
      }
      return false;
    };
    for (auto p = patch.begin(); p != patch.end(); ++p) {
      if (p.value().is_null() || starts_with(p.key(), kDeleteFromPrimitiveListPrefix) ||
          starts_with(p.key(), kSetElementOrderPrefix)) {
        continue;
      }
      if (!listed(p.key())) {
        return bad_request(kErrBadPatchFormatForRetainKeys);
      }
    }
    for (auto o = original.begin(); o != original.end();) {
      if (listed(o.key())) {
        ++o;
      } else {
        o = original.erase(o);
      }
    }
    return {};
  }

  // mergePatchIntoOriginal: the lists named by $setElementOrder directives.
  Status merge_patch_into_original(json& original, json& patch, const GoSchema& schema) {
    std::vector<std::string> keys;
    for (auto it = patch.begin(); it != patch.end(); ++it) {
      if (starts_with(it.key(), kSetElementOrderPrefix)) {
        keys.push_back(it.key());
      }
    }
    for (const std::string& key : keys) {
      json set_order = std::move(patch[key]);
      patch.erase(key);
      if (!set_order.is_array()) {
        return err_bad_arg_type(kGoSliceType, set_order);
      }
      auto extracted = extract_key(key, kSetElementOrderPrefix);
      if (auto* e = std::get_if<SmpError>(&extracted)) {
        return *e;
      }
      const std::string& field = std::get<std::string>(extracted);
      auto original_it = original.find(field);
      auto patch_it = patch.find(field);
      bool found_original = original_it != original.end();
      bool found_patch = patch_it != patch.end();
      if (found_original && !original_it->is_array()) {
        return err_bad_arg_type(kGoSliceType, *original_it);
      }
      if (found_patch && !patch_it->is_array()) {
        return err_bad_arg_type(kGoSliceType, *patch_it);
      }
      auto lookup = lookup_slice(schema, field, /*strict=*/true);
      if (auto* e = std::get_if<SmpError>(&lookup)) {
        return *e;
      }
      const Lookup& l = std::get<Lookup>(lookup);
      auto strategy = patch_strategy(l.meta);
      if (auto* e = std::get_if<SmpError>(&strategy)) {
        return *e;
      }
      const std::string& merge_key = l.meta.merge_key;
      Items patch_field = found_patch ? elements(*patch_it) : Items{};
      Items order = elements(set_order);
      if (Status s = validate_patch_with_set_order_list(patch_field, order, merge_key)) {
        return s;
      }

      // What the caller's slice header over the live list sees after the merge.
      Items original_field = found_original ? elements(*original_it) : Items{};
      json merged;
      if (found_original && found_patch) {
        merged = *original_it;
        Items alias_view = original_field;
        if (Status s =
                merge_slice_handler(merged, *patch_it, l.sub, std::get<std::string>(strategy),
                                    merge_key, false, &alias_view)) {
          return s;
        }
        original_field = std::move(alias_view);
      } else if (found_original) {
        merged = *original_it;
      } else if (found_patch) {
        merged = *patch_it;
      } else {
        continue;
      }

      Items merged_items = elements(merged);
      Items patch_items;
      Items server_only;
      if (merge_key.empty()) {
        if (Status s = partition_primitives(merged_items, order, patch_items, server_only)) {
          return s;
        }
      } else if (Status s =
                     partition_maps(merged_items, order, merge_key, patch_items, server_only)) {
        return s;
      }
      auto element_type = slice_element_type({&original_field, &patch_field});
      if (auto* e = std::get_if<SmpError>(&element_type)) {
        return *e;
      }
      bool is_map = std::get<GoType>(element_type) == GoType::Map;
      auto both = normalize_element_order(std::move(patch_items), std::move(server_only), order,
                                          original_field, merge_key, is_map);
      if (auto* e = std::get_if<SmpError>(&both)) {
        return *e;
      }
      original[field] = to_array(std::get<Items>(std::move(both)));
      patch.erase(field);
    }
    return {};
  }

  // validatePatchWithSetOrderList: the patch list must follow the $setElementOrder order.
  Status validate_patch_with_set_order_list(const Items& patch_list, const Items& order,
                                            const std::string& merge_key) {
    if (order.empty() || patch_list.empty()) {
      return {};
    }
    Items non_delete;
    if (!merge_key.empty()) {
      Items to_delete;
      if (Status s = extract_to_delete_items(patch_list, non_delete, to_delete)) {
        return s;
      }
    } else {
      non_delete = patch_list;
    }
    size_t patch_index = 0;
    size_t order_index = 0;
    while (patch_index < non_delete.size() && order_index < order.size()) {
      const json& item = non_delete[patch_index];
      if (item.is_object() && item.contains(kDirectiveMarker)) {
        ++patch_index;
        continue;
      }
      auto equal = merge_key_value_equal(item, order[order_index], merge_key);
      if (auto* e = std::get_if<SmpError>(&equal)) {
        return *e;
      }
      if (std::get<bool>(equal)) {
        ++patch_index;
      }
      ++order_index;
    }
    if (patch_index < non_delete.size() && order_index >= order.size()) {
      return internal("The order in patch list:\n" + go_sprint_items(patch_list) +
                      "\n doesn't match " + std::string(kSetElementOrderPrefix) + " list:\n" +
                      go_sprint_items(order) + "\n");
    }
    return {};
  }

  std::variant<bool, SmpError> merge_key_value_equal(const json& left, const json& right,
                                                     const std::string& merge_key) {
    if (merge_key.empty()) {
      bool equal = go_equal(left, right);
      if (Status s = panicked()) {
        return *s;
      }
      return equal;
    }
    if (!left.is_object()) {
      return err_bad_arg_type(kGoMapType, left);
    }
    if (!right.is_object()) {
      return err_bad_arg_type(kGoMapType, right);
    }
    auto l = left.find(merge_key);
    if (l == left.end()) {
      return err_no_merge_key(left, merge_key);
    }
    auto r = right.find(merge_key);
    if (r == right.end()) {
      return err_no_merge_key(right, merge_key);
    }
    bool equal = go_equal(*l, *r);
    if (Status s = panicked()) {
      return *s;
    }
    return equal;
  }

  // ---- Lists ----

  // mergeSliceHandler: merges `patch` into list `target` in place. alias_view (optional, in: the
  // live items; out: what a Go slice header over the live list sees afterwards).
  Status merge_slice_handler(json& target, json patch, const GoSchema& elem,
                             const std::string& strategy, const std::string& merge_key,
                             bool is_delete_list, Items* alias_view) {
    if (strategy != kMergeDirective) {
      target = std::move(patch);
      return {};
    }
    Items original = elements(target);
    Items patch_items = elements(patch);
    auto merged = merge_slice(std::move(original), std::move(patch_items), elem, merge_key,
                              is_delete_list, alias_view);
    if (auto* e = std::get_if<SmpError>(&merged)) {
      return *e;
    }
    target = to_array(std::get<Items>(std::move(merged)));
    return {};
  }

  // mergeSlice.
  std::variant<Items, SmpError> merge_slice(Items original, Items patch, const GoSchema& elem,
                                            const std::string& merge_key, bool is_delete_list,
                                            Items* alias_view) {
    if (original.empty() && patch.empty()) {
      return original;
    }
    auto element_type = slice_element_type({&original, &patch});
    if (auto* e = std::get_if<SmpError>(&element_type)) {
      return *e;
    }
    bool is_map = std::get<GoType>(element_type) == GoType::Map;
    Items merged;
    Items server_order;
    Items patch_order;
    if (!is_map) {
      if (is_delete_list) {
        return delete_from_slice(original, patch);
      }
      merged = original;
      merged.insert(merged.end(), patch.begin(), patch.end());
      dedupe_scalars(merged);
      server_order = std::move(original);
      patch_order = std::move(patch);
    } else {
      if (merge_key.empty()) {
        return internal("cannot merge lists without merge key for " + kind_name(elem));
      }
      // Go deletes from the live slice in place (append(s[:i], s[i+1:]...)) and appends into
      // the tail that frees; `backing` is that array as the caller's header sees it.
      Items backing = original;
      size_t len = backing.size();
      Items non_special;
      bool replace = false;
      for (const json& v : patch) {
        auto marker = v.find(kDirectiveMarker);
        if (marker == v.end()) {
          non_special.push_back(v);
        } else if (is_string(*marker, kDeleteDirective)) {
          auto value = v.find(merge_key);
          if (value == v.end()) {
            return err_no_merge_key(v, merge_key);
          }
          while (true) {
            auto found = find_map_in_slice(backing, len, merge_key, *value);
            if (auto* e = std::get_if<SmpError>(&found)) {
              return *e;
            }
            int index = std::get<int>(found);
            if (index < 0) {
              break;
            }
            for (size_t i = static_cast<size_t>(index); i + 1 < len; ++i) {
              backing[i] = backing[i + 1];
            }
            --len;
          }
        } else if (is_string(*marker, kReplaceDirective)) {
          replace = true;
        } else if (is_string(*marker, kMergeDirective)) {
          return internal("merging lists cannot yet be specified in the patch");
        } else {
          return err_bad_patch_type(*marker, v);
        }
      }
      bool in_backing = !replace;
      if (replace) {
        merged = std::move(non_special);
        non_special.clear();
      } else {
        merged.assign(backing.begin(), backing.begin() + static_cast<std::ptrdiff_t>(len));
      }
      server_order = merged;
      size_t tail = len;
      for (const json& v : non_special) {
        auto value = v.find(merge_key);
        if (value == v.end()) {
          return err_no_merge_key(v, merge_key);
        }
        auto found = find_map_in_slice(merged, merged.size(), merge_key, *value);
        if (auto* e = std::get_if<SmpError>(&found)) {
          return *e;
        }
        int index = std::get<int>(found);
        if (index >= 0) {
          if (Status s = merge_map(merged[static_cast<size_t>(index)], v, elem)) {
            return *s;
          }
        } else {
          merged.push_back(v);
          if (in_backing && tail < backing.size()) {
            backing[tail++] = v;
          }
        }
      }
      patch_order = std::move(non_special);
      if (alias_view != nullptr) {
        *alias_view = std::move(backing);
      }
    }
    Items patch_items;
    Items server_only;
    if (merge_key.empty()) {
      if (Status s = partition_primitives(merged, patch_order, patch_items, server_only)) {
        return *s;
      }
    } else if (Status s =
                   partition_maps(merged, patch_order, merge_key, patch_items, server_only)) {
      return *s;
    }
    return normalize_element_order(std::move(patch_items), std::move(server_only), patch_order,
                                   server_order, merge_key, is_map);
  }

  // sliceElementType: the one Go type of every item of the lists.
  std::variant<GoType, SmpError> slice_element_type(std::initializer_list<const Items*> lists) {
    std::optional<GoType> prev;
    for (const Items* list : lists) {
      for (const json& v : *list) {
        GoType current = go_type(v);
        if (!prev) {
          prev = current;
          if (current == GoType::Nil) {
            return panic("runtime error: invalid memory address or nil pointer dereference");
          }
          if (current == GoType::Slice) {
            return SmpError{SmpErrorKind::Unprocessable, std::string(kErrNoListOfLists)};
          }
        } else if (*prev != current) {
          std::string all = "[";
          bool first = true;
          for (const Items* l : lists) {
            all += (first ? "" : " ") + go_sprint_items(*l);
            first = false;
          }
          return internal("list element types are not identical: " + all + "]");
        }
      }
    }
    if (!prev) {
      return internal("no elements in any of the given slices");
    }
    return *prev;
  }

  // findMapInSliceBasedOnKeyValue over items[0, len).
  std::variant<int, SmpError> find_map_in_slice(const Items& items, size_t len,
                                                const std::string& key, const json& value) {
    for (size_t i = 0; i < len; ++i) {
      const json& v = items[i];
      if (!v.is_object()) {
        return internal("value for key " + std::to_string(i) + " is not a map");
      }
      auto it = v.find(key);
      if (it != v.end()) {
        bool equal = go_equal(*it, value);
        if (Status s = panicked()) {
          return *s;
        }
        if (equal) {
          return static_cast<int>(i);
        }
      }
    }
    return -1;
  }

  // deduplicateScalars: moves the last item into each duplicate's place.
  void dedupe_scalars(Items& s) {
    if (s.empty()) {
      return;
    }
    size_t length = s.size() - 1;
    for (size_t i = 0; i < length; ++i) {
      for (size_t j = i + 1; j <= length; ++j) {
        if (go_equal(s[i], s[j])) {
          s[j] = s[length];
          s.resize(length);
          --length;
          --j;
        }
      }
    }
  }

  std::variant<Items, SmpError> delete_from_slice(const Items& current, const Items& to_delete) {
    for (const json& v : to_delete) {
      require_hashable(v);
    }
    for (const json& v : current) {
      require_hashable(v);
    }
    if (Status s = panicked()) {
      return *s;
    }
    Items out;
    for (const json& v : current) {
      bool deleted = false;
      for (const json& d : to_delete) {
        deleted = deleted || go_equal(v, d);
      }
      if (!deleted) {
        out.push_back(v);
      }
    }
    return out;
  }

  Status partition_primitives(const Items& items, const Items& by, Items& in, Items& out) {
    for (const json& v : by) {
      require_hashable(v);
    }
    for (const json& v : items) {
      require_hashable(v);
    }
    if (Status s = panicked()) {
      return s;
    }
    for (const json& v : items) {
      bool present = false;
      for (const json& b : by) {
        present = present || go_equal(v, b);
      }
      (present ? in : out).push_back(v);
    }
    return {};
  }

  Status partition_maps(const Items& items, const Items& by, const std::string& merge_key,
                        Items& in, Items& out) {
    for (const json& v : items) {
      if (!v.is_object()) {
        return err_bad_arg_type(kGoMapType, v);
      }
      auto value = v.find(merge_key);
      if (value == v.end()) {
        return err_no_merge_key(v, merge_key);
      }
      auto found = find_map_in_slice(by, by.size(), merge_key, *value);
      if (auto* e = std::get_if<SmpError>(&found)) {
        return *e;
      }
      (std::get<int>(found) >= 0 ? in : out).push_back(v);
    }
    return {};
  }

  Status extract_to_delete_items(const Items& list, Items& non_delete, Items& to_delete) {
    for (const json& v : list) {
      if (!v.is_object()) {
        return err_bad_arg_type(kGoMapType, v);
      }
      auto marker = v.find(kDirectiveMarker);
      (marker != v.end() && is_string(*marker, kDeleteDirective) ? to_delete : non_delete)
          .push_back(v);
    }
    return {};
  }

  // index(): the position of `value` in `list`, by merge key for maps.
  int index_of(const Items& list, const json& value, const std::string& merge_key, bool is_map) {
    static const json kNil;
    auto get = [&](const json& item) -> const json& {
      if (!is_map) {
        return item;
      }
      if (!item.is_object()) {
        return kNil;
      }
      auto it = item.find(merge_key);
      return it == item.end() ? kNil : *it;
    };
    const json& needle = get(value);
    for (size_t i = 0; i < list.size(); ++i) {
      if (go_equal(needle, get(list[i]))) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  // normalizeElementOrder: patch items sorted by patch_order, server-only items by
  // server_order, then interleaved.
  std::variant<Items, SmpError> normalize_element_order(Items patch, Items server_only,
                                                        const Items& patch_order,
                                                        const Items& server_order,
                                                        const std::string& merge_key, bool is_map) {
    if (Status s = normalize_slice_order(patch, patch_order, merge_key, is_map)) {
      return *s;
    }
    if (Status s = normalize_slice_order(server_only, server_order, merge_key, is_map)) {
      return *s;
    }
    // mergeSortedSlice: a server-only item goes first only when both it and the patch item are
    // in the live list and it was ahead there.
    Items out;
    size_t i = 0;
    size_t j = 0;
    while (i < server_only.size() || j < patch.size()) {
      if (i >= server_only.size()) {
        out.push_back(std::move(patch[j++]));
      } else if (j >= patch.size()) {
        out.push_back(std::move(server_only[i++]));
      } else {
        int li = index_of(server_order, server_only[i], merge_key, is_map);
        int ri = index_of(server_order, patch[j], merge_key, is_map);
        if (li >= 0 && ri >= 0 && li < ri) {
          out.push_back(std::move(server_only[i++]));
        } else {
          out.push_back(std::move(patch[j++]));
        }
      }
    }
    if (Status s = panicked()) {
      return *s;
    }
    return out;
  }

  // normalizeSliceOrder: sorts `items` by `order`; delete directives go last.
  Status normalize_slice_order(Items& items, const Items& order, const std::string& merge_key,
                               bool is_map) {
    Items to_delete;
    if (is_map) {
      for (const Items* list : std::initializer_list<const Items*>{&items, &order}) {
        for (const json& v : *list) {
          if (!v.is_object()) {
            return err_bad_arg_type(kGoMapType, v);
          }
          if (!v.contains(merge_key)) {
            return err_no_merge_key(v, merge_key);
          }
        }
      }
      Items non_delete;
      if (Status s = extract_to_delete_items(items, non_delete, to_delete)) {
        return s;
      }
      items = std::move(non_delete);
    }
    GoStableSort(items, [&](const json& a, const json& b) {
      if (int ia = index_of(order, a, merge_key, is_map); ia >= 0) {
        if (int ib = index_of(order, b, merge_key, is_map); ib >= 0) {
          return ia < ib;
        }
      }
      return true;
    }).run();
    if (Status s = panicked()) {
      return s;
    }
    items.insert(items.end(), to_delete.begin(), to_delete.end());
    return {};
  }

  const registry::SchemaIndex& index_;
  std::optional<std::string> panic_;  // the first Go panic; it ends the request
};

}  // namespace

SmpHttpStatus to_http_status(const SmpError& error) {
  SmpHttpStatus out;
  switch (error.kind) {
    case SmpErrorKind::BadRequest:
      out.code = 400;
      out.reason = "BadRequest";
      out.message = error.message;
      break;
    case SmpErrorKind::Unprocessable:
      out.code = 422;
      out.reason = "Invalid";
      out.message = "the server rejected our request due to an error in our request";
      out.empty_details = true;
      break;
    case SmpErrorKind::Internal:
      out.code = 500;
      out.message = error.message;
      break;
    case SmpErrorKind::Panic:
      out.code = 500;
      out.message = std::string(kPanicResponseBody);
      out.plain_text = true;
      break;
  }
  return out;
}

std::variant<json, SmpError> apply_strategic_merge_patch(const registry::SchemaIndex& index,
                                                         const json* schema, const json& original,
                                                         const json& patch) {
  if (patch.is_null()) {
    return original.is_object() ? original : json::object();
  }
  if (!patch.is_object()) {
    return bad_request("json: cannot unmarshal " + registry::go_json_kind(patch) +
                       " into Go value of type map[string]interface {}");
  }
  // The merged object is never deeper than the deeper input.
  return with_stack_for(
      std::max(json_depth(original), json_depth(patch)), [&]() -> std::variant<json, SmpError> {
        json result = original.is_object() ? original : json::object();
        Merger merger(index);
        Status status = merger.merge_map(result, patch, GoSchema{schema, name_of(schema)});
        if (merger.panic_message()) {
          return SmpError{SmpErrorKind::Panic, *merger.panic_message()};
        }
        if (status) {
          return *status;
        }
        return result;
      });
}

}  // namespace apiserver::endpoints::patch
