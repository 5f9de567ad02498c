// Declarations shared by the strategic merge files: strategic_merge.cpp (the entry points, maps
// and directives), strategic_merge_lists.cpp (lists merged by key and their order),
// strategic_merge_schema.cpp (patch metadata from the OpenAPI facts) and strategic_merge_go.cpp
// (the Go runtime behaviour upstream's results depend on).
//
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
#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "endpoints/patch/strategic_merge.h"
#include "registry/schema_index.h"

namespace apiserver::endpoints::patch::strategic_merge_detail {

using nlohmann::json;
using Status = std::optional<SmpError>;
using Items = std::vector<json>;

inline constexpr std::string_view kDirectiveMarker = "$patch";
inline constexpr std::string_view kDeleteDirective = "delete";
inline constexpr std::string_view kReplaceDirective = "replace";
inline constexpr std::string_view kMergeDirective = "merge";
inline constexpr std::string_view kRetainKeysStrategy = "retainKeys";
inline constexpr std::string_view kRetainKeysDirective = "$retainKeys";
inline constexpr std::string_view kDeleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList";
inline constexpr std::string_view kSetElementOrderPrefix = "$setElementOrder";

inline constexpr std::string_view kErrBadPatchFormatForPrimitiveList =
    "invalid patch format of primitive list";
inline constexpr std::string_view kErrBadPatchFormatForRetainKeys =
    "invalid patch format of retainKeys";
inline constexpr std::string_view kErrBadPatchFormatForSetElementOrderList =
    "invalid patch format of setElementOrder list";
inline constexpr std::string_view kErrNoListOfLists = "lists of lists are not supported";
inline constexpr std::string_view kGoMapType = "map[string]interface {}";
inline constexpr std::string_view kGoSliceType = "[]interface {}";

inline SmpError bad_request(std::string_view message) {
  return SmpError{SmpErrorKind::BadRequest, std::string(message)};
}
inline SmpError internal(std::string message) {
  return SmpError{SmpErrorKind::Internal, std::move(message)};
}

inline bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

inline bool is_string(const json& v, std::string_view s) {
  return v.is_string() && v.get_ref<const std::string&>() == s;
}

// ---- Go values (strategic_merge_go.cpp) ---------------------------------------------------

// The dynamic Go type a decoded JSON value has (UnmarshalCaseSensitivePreserveInts /
// ToUnstructured): integers are int64, other numbers float64.
enum class GoType { Nil, Map, Slice, String, Int64, Float64, Bool };

GoType go_type(const json& v);
std::string go_type_name(const json& v);
std::string go_sprint(const json& v, char verb);
std::string go_sprint_items(const Items& items);
SmpError err_no_merge_key(const json& m, const std::string& key);
SmpError err_bad_arg_type(std::string_view expected, const json& actual);
SmpError err_bad_patch_type(const json& directive, const json& m);
Items elements(const json& list);
json to_array(Items items);
// sort.SliceStable(data, less), step by step (see GoStableSort).
void go_slice_stable(Items& data, std::function<bool(const json&, const json&)> less);

// ---- Schema: PatchMetaFromStruct over the OpenAPI facts (strategic_merge_schema.cpp) ---------

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

std::string name_of(const json* node);
std::variant<std::string, SmpError> patch_strategy(const PatchMeta& meta);

// ---- The merge ------------------------------------------------------------------------------

// One request's merge: upstream's functions as members sharing the schema index and the first Go
// panic. Each group of members is defined in the file named next to it.
class Merger {
 public:
  explicit Merger(const registry::SchemaIndex& index) : index_(index) {}

  const std::optional<std::string>& panic_message() const { return panic_; }

  Status merge_map(json& original, json patch, const GoSchema& schema);

 private:
  // Go runtime behaviour (strategic_merge_go.cpp).
  SmpError panic(std::string message);
  Status panicked() const;
  bool go_equal(const json& a, const json& b);
  void require_hashable(const json& v);

  // Schema lookups (strategic_merge_schema.cpp).
  SchemaKind classify(const GoSchema& s) const;
  std::string kind_name(const GoSchema& s) const;
  std::variant<Lookup, SmpError> lookup_struct(const GoSchema& parent, const std::string& key,
                                               bool strict) const;
  std::variant<Lookup, SmpError> lookup_slice(const GoSchema& parent, const std::string& key,
                                              bool strict) const;

  // Directives (strategic_merge.cpp).
  static std::variant<std::string, SmpError> extract_key(const std::string& s,
                                                         std::string_view prefix);
  Status apply_retain_keys(json& original, json& patch);
  Status merge_patch_into_original(json& original, json& patch, const GoSchema& schema);
  Status validate_patch_with_set_order_list(const Items& patch_list, const Items& order,
                                            const std::string& merge_key);
  std::variant<bool, SmpError> merge_key_value_equal(const json& left, const json& right,
                                                     const std::string& merge_key);

  // Lists (strategic_merge_lists.cpp).
  Status merge_slice_handler(json& target, json patch, const GoSchema& elem,
                             const std::string& strategy, const std::string& merge_key,
                             bool is_delete_list, Items* alias_view);
  std::variant<Items, SmpError> merge_slice(Items original, Items patch, const GoSchema& elem,
                                            const std::string& merge_key, bool is_delete_list,
                                            Items* alias_view);
  std::variant<GoType, SmpError> slice_element_type(std::initializer_list<const Items*> lists);
  std::variant<int, SmpError> find_map_in_slice(const Items& items, size_t len,
                                                const std::string& key, const json& value);
  void dedupe_scalars(Items& s);
  std::variant<Items, SmpError> delete_from_slice(const Items& current, const Items& to_delete);
  Status partition_primitives(const Items& items, const Items& by, Items& in, Items& out);
  Status partition_maps(const Items& items, const Items& by, const std::string& merge_key,
                        Items& in, Items& out);
  Status extract_to_delete_items(const Items& list, Items& non_delete, Items& to_delete);
  int index_of(const Items& list, const json& value, const std::string& merge_key, bool is_map);
  std::variant<Items, SmpError> normalize_element_order(Items patch, Items server_only,
                                                        const Items& patch_order,
                                                        const Items& server_order,
                                                        const std::string& merge_key, bool is_map);
  Status normalize_slice_order(Items& items, const Items& order, const std::string& merge_key,
                               bool is_map);

  const registry::SchemaIndex& index_;
  std::optional<std::string> panic_;  // the first Go panic; it ends the request
};

}  // namespace apiserver::endpoints::patch::strategic_merge_detail
