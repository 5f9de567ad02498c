// Lists under the "merge" strategy (upstream's mergeSlice and normalizeElementOrder): items
// matched by merge key or, for scalars, by value; `$patch` directives in list items; the order
// of the merged list.
#include "endpoints/patch/strategic_merge_internal.h"

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace apiserver::endpoints::patch::strategic_merge_detail {

// mergeSliceHandler: merges `patch` into list `target` in place. alias_view (optional, in: the
// live items; out: what a Go slice header over the live list sees afterwards).
Status Merger::merge_slice_handler(json& target, json patch, const GoSchema& elem,
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
std::variant<Items, SmpError> Merger::merge_slice(Items original, Items patch, const GoSchema& elem,
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
  } else if (Status s = partition_maps(merged, patch_order, merge_key, patch_items, server_only)) {
    return *s;
  }
  return normalize_element_order(std::move(patch_items), std::move(server_only), patch_order,
                                 server_order, merge_key, is_map);
}

// sliceElementType: the one Go type of every item of the lists.
std::variant<GoType, SmpError> Merger::slice_element_type(
    std::initializer_list<const Items*> lists) {
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
std::variant<int, SmpError> Merger::find_map_in_slice(const Items& items, size_t len,
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
void Merger::dedupe_scalars(Items& s) {
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

std::variant<Items, SmpError> Merger::delete_from_slice(const Items& current,
                                                        const Items& to_delete) {
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

Status Merger::partition_primitives(const Items& items, const Items& by, Items& in, Items& out) {
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

Status Merger::partition_maps(const Items& items, const Items& by, const std::string& merge_key,
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

Status Merger::extract_to_delete_items(const Items& list, Items& non_delete, Items& to_delete) {
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
int Merger::index_of(const Items& list, const json& value, const std::string& merge_key,
                     bool is_map) {
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
std::variant<Items, SmpError> Merger::normalize_element_order(Items patch, Items server_only,
                                                              const Items& patch_order,
                                                              const Items& server_order,
                                                              const std::string& merge_key,
                                                              bool is_map) {
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
Status Merger::normalize_slice_order(Items& items, const Items& order, const std::string& merge_key,
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
  go_slice_stable(items, [&](const json& a, const json& b) {
    if (int ia = index_of(order, a, merge_key, is_map); ia >= 0) {
      if (int ib = index_of(order, b, merge_key, is_map); ib >= 0) {
        return ia < ib;
      }
    }
    return true;
  });
  if (Status s = panicked()) {
    return s;
  }
  items.insert(items.end(), to_delete.begin(), to_delete.end());
  return {};
}

}  // namespace apiserver::endpoints::patch::strategic_merge_detail
