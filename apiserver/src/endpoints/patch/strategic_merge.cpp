// The entry points, the merge of maps and the directives that act on maps ($patch,
// $retainKeys, $setElementOrder, $deleteFromPrimitiveList). Lists, schema lookups and the Go
// runtime behaviour are in the strategic_merge_*.cpp files next to this one.
#include "endpoints/patch/strategic_merge.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "endpoints/patch/deep_stack.h"
#include "endpoints/patch/strategic_merge_internal.h"
#include "registry/go_text.h"

namespace apiserver::endpoints::patch::strategic_merge_detail {
namespace {

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

}  // namespace

// mergeMap: merges `patch` into `original` in place.
Status Merger::merge_map(json& original, json patch, const GoSchema& schema) {
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
      if (Status s =
              merge_slice_handler(*found, std::move(value), l.sub, std::get<std::string>(strategy),
                                  l.meta.merge_key, is_delete_list, nullptr)) {
        return s;
      }
    } else {
      *found = std::move(value);
    }
  }
  return {};
}

// ---- Directives ----

std::variant<std::string, SmpError> Merger::extract_key(const std::string& s,
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
Status Merger::apply_retain_keys(json& original, json& patch) {
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
Status Merger::merge_patch_into_original(json& original, json& patch, const GoSchema& schema) {
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
      if (Status s = merge_slice_handler(merged, *patch_it, l.sub, std::get<std::string>(strategy),
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
Status Merger::validate_patch_with_set_order_list(const Items& patch_list, const Items& order,
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

std::variant<bool, SmpError> Merger::merge_key_value_equal(const json& left, const json& right,
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

}  // namespace apiserver::endpoints::patch::strategic_merge_detail

namespace apiserver::endpoints::patch {

using nlohmann::json;
using strategic_merge_detail::bad_request;
using strategic_merge_detail::GoSchema;
using strategic_merge_detail::Merger;
using strategic_merge_detail::name_of;
using strategic_merge_detail::Status;

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
