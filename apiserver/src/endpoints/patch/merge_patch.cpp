#include "endpoints/patch/merge_patch.h"

#include "endpoints/patch/deep_stack.h"
#include "registry/go_text.h"

#include <algorithm>
#include <string>
#include <utility>

namespace apiserver::endpoints::patch {

namespace {

using nlohmann::json;

// Removes null object members and null array elements, recursively (evanphx's pruneNulls).
void prune_nulls(json& value) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      if (it->is_null()) {
        it = value.erase(it);
      } else {
        prune_nulls(*it);
        ++it;
      }
    }
  } else if (value.is_array()) {
    json kept = json::array();
    for (auto& item : value) {
      if (!item.is_null()) {
        prune_nulls(item);
        kept.push_back(std::move(item));
      }
    }
    value = std::move(kept);
  }
}

void merge_objects(json& doc, const json& patch);

// evanphx's merge(): objects merge; otherwise the patch value replaces, pruned only when the
// current value is not an object.
void merge_value(json& current, const json& patch) {
  if (!current.is_object()) {
    current = patch;
    prune_nulls(current);
    return;
  }
  if (!patch.is_object()) {
    current = patch;
    return;
  }
  merge_objects(current, patch);
}

void merge_objects(json& doc, const json& patch) {
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& key = it.key();
    if (it->is_null()) {
      doc.erase(key);
      continue;
    }
    const auto current = doc.find(key);
    if (current == doc.end() || current->is_null()) {
      json value = *it;
      prune_nulls(value);
      doc[key] = std::move(value);
    } else {
      merge_value(*current, *it);
    }
  }
}

PatchError error_with(int code, const char* reason, const char* text) {
  return PatchError{code, reason, text, text};
}

std::variant<json, PatchError> merge_patch_of(const json& document, const json& patch) {
  if (document.is_null()) {
    return error_with(500, "", "Invalid JSON Document");
  }
  if (patch.is_object()) {
    if (!document.is_object()) {
      json result = patch;
      prune_nulls(result);
      return result;
    }
    json result = document;
    merge_objects(result, patch);
    return result;
  }
  if (patch.is_array()) {
    json result = patch;
    prune_nulls(result);
    return result;
  }
  return error_with(400, "BadRequest", "Invalid JSON Patch");
}

// jsonpatch.CreateMergePatch on two decoded values.
json diff_objects(const json& from, const json& to) {
  if (!from.is_object() || !to.is_object()) {
    return to;
  }
  json patch = json::object();
  for (auto it = to.begin(); it != to.end(); ++it) {
    const std::string& key = it.key();
    const auto before = from.find(key);
    if (before == from.end()) {
      patch[key] = *it;
    } else if (before->is_object() && it->is_object()) {
      json nested = diff_objects(*before, *it);
      if (!nested.empty()) {
        patch[key] = std::move(nested);
      }
    } else if (*before != *it) {
      patch[key] = *it;
    }
  }
  for (auto it = from.begin(); it != from.end(); ++it) {
    if (!to.contains(it.key())) {
      patch[it.key()] = nullptr;
    }
  }
  return patch;
}

}  // namespace

// The result is never deeper than the deeper of the two inputs.
std::variant<json, PatchError> apply_merge_patch(const json& document, const json& patch) {
  return with_stack_for(std::max(json_depth(document), json_depth(patch)),
                        [&] { return merge_patch_of(document, patch); });
}

std::optional<PatchError> merge_patch_strict_error(const json& patch) {
  if (patch.is_object() || patch.is_null()) {
    return std::nullopt;
  }
  const std::string text = std::string("error decoding patch: json: cannot unmarshal ") +
                           registry::go_json_kind(patch) +
                           " into Go value of type map[string]interface {}";
  return PatchError{400, "BadRequest", text, text};
}

json create_merge_patch(const json& from, const json& to) {
  return with_stack_for(std::max(json_depth(from), json_depth(to)),
                        [&] { return diff_objects(from, to); });
}

}  // namespace apiserver::endpoints::patch
