#include "console/model/resource_cache.h"

#include <algorithm>
#include <charconv>

namespace console::model {

namespace {

std::optional<uint64_t> rv_number(const std::string& rv) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), value);
  if (rv.empty() || ec != std::errc() || end != rv.data() + rv.size()) {
    return std::nullopt;
  }
  return value;
}

// -1, 0 or 1 when both versions are integers; nullopt when they cannot be ordered.
std::optional<int> compare_rv(const std::string& a, const std::string& b) {
  const auto x = rv_number(a);
  const auto y = rv_number(b);
  if (!x || !y) {
    return std::nullopt;
  }
  return *x < *y ? -1 : (*x > *y ? 1 : 0);
}

const std::string* string_at(const nlohmann::json& object, const char* field) {
  if (!object.is_object()) {
    return nullptr;
  }
  const auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
}

const nlohmann::json& metadata_of(const nlohmann::json& object) {
  static const nlohmann::json kNone;
  if (!object.is_object()) {
    return kNone;
  }
  const auto it = object.find("metadata");
  return it != object.end() ? *it : kNone;
}

std::string string_or_empty(const std::string* s) {
  return s != nullptr ? *s : std::string();
}

}  // namespace

ResourceCache::ResourceCache(std::string namespace_, size_t history_depth)
    : namespace_(std::move(namespace_)), history_depth_(std::max<size_t>(history_depth, 1)) {}

bool ResourceCache::in_scope(const std::string& object_namespace) const {
  return namespace_.empty() || object_namespace == namespace_;
}

void ResourceCache::store(ObjectKey key, ObjectVersion version) {
  auto it = objects_.find(key);
  if (it == objects_.end()) {
    ++counts_[key.first];
    CachedObject fresh;
    fresh.namespace_ = key.first;
    fresh.name = key.second;
    it = objects_.emplace(std::move(key), std::move(fresh)).first;
  }
  std::deque<ObjectVersion>& versions = it->second.versions;
  versions.push_back(std::move(version));
  while (versions.size() > history_depth_) {
    versions.pop_front();
  }
}

void ResourceCache::erase(ObjectMap::iterator it) {
  const auto count = counts_.find(it->first.first);
  if (count != counts_.end() && --count->second == 0) {
    counts_.erase(count);
  }
  objects_.erase(it);
}

void ResourceCache::advance_resource_version(const std::string& resource_version) {
  if (resource_version.empty()) {
    return;
  }
  const std::optional<int> order = compare_rv(resource_version, resource_version_);
  if (!order || *order > 0) {
    resource_version_ = resource_version;
  }
}

ApplyOutcome ResourceCache::invalid(std::string message) {
  last_error_ = std::move(message);
  return ApplyOutcome::Invalid;
}

std::optional<std::string> ResourceCache::replace(const nlohmann::json& list, int64_t now_ms) {
  auto malformed = [this](std::string message) {
    last_error_ = message;
    return message;
  };
  if (!list.is_object()) {
    return malformed("list: not an object");
  }
  static const nlohmann::json kNoItems = nlohmann::json::array();
  const auto items_it = list.find("items");
  const nlohmann::json& items =
      items_it == list.end() || items_it->is_null() ? kNoItems : *items_it;
  if (!items.is_array()) {
    return malformed("list: items is not an array");
  }
  for (size_t i = 0; i < items.size(); ++i) {
    if (string_at(metadata_of(items[i]), "name") == nullptr) {
      return malformed("list: items[" + std::to_string(i) + "].metadata.name is missing");
    }
  }

  // A LIST leaves kind and apiVersion off its items; put them back so that every version in the
  // history renders the same way whether it came from a list or a watch.
  const std::string list_kind = string_or_empty(string_at(list, "kind"));
  const std::string* list_api_version = string_at(list, "apiVersion");
  const std::string item_kind = list_kind.size() > 4 && list_kind.ends_with("List")
                                    ? list_kind.substr(0, list_kind.size() - 4)
                                    : std::string();

  ObjectMap previous = std::move(objects_);
  objects_.clear();
  counts_.clear();
  for (const nlohmann::json& item : items) {
    const nlohmann::json& metadata = metadata_of(item);
    ObjectKey key{string_or_empty(string_at(metadata, "namespace")), *string_at(metadata, "name")};
    if (!in_scope(key.first)) {
      continue;
    }
    std::string rv = string_or_empty(string_at(metadata, "resourceVersion"));
    const auto old = previous.find(key);
    if (old != previous.end()) {
      const bool unchanged = old->second.resource_version() == rv;
      ++counts_[key.first];
      objects_.emplace(key, std::move(old->second));
      previous.erase(old);
      if (unchanged) {
        continue;
      }
    }
    nlohmann::json object = item;
    if (!item_kind.empty() && !object.contains("kind")) {
      object["kind"] = item_kind;
    }
    if (list_api_version != nullptr && !object.contains("apiVersion")) {
      object["apiVersion"] = *list_api_version;
    }
    store(std::move(key), ObjectVersion{std::move(object), std::move(rv), now_ms});
  }
  resource_version_ = string_or_empty(string_at(metadata_of(list), "resourceVersion"));
  needs_relist_ = false;
  last_error_.clear();
  return std::nullopt;
}

ApplyOutcome ResourceCache::apply(const nlohmann::json& event, int64_t now_ms) {
  const std::string* type = string_at(event, "type");
  if (type == nullptr) {
    return invalid("watch event without a type");
  }
  const auto object_it = event.find("object");
  if (object_it == event.end() || !object_it->is_object()) {
    return invalid("watch event " + *type + " without an object");
  }
  const nlohmann::json& object = *object_it;
  const nlohmann::json& metadata = metadata_of(object);
  const std::string rv = string_or_empty(string_at(metadata, "resourceVersion"));

  if (*type == "BOOKMARK") {
    if (rv.empty()) {
      return invalid("BOOKMARK without metadata.resourceVersion");
    }
    advance_resource_version(rv);
    return ApplyOutcome::Bookmark;
  }
  if (*type == "ERROR") {
    const auto code = object.find("code");
    const std::string message = string_or_empty(string_at(object, "message"));
    last_error_ = message.empty() ? "watch error" : message;
    if (code != object.end() && code->is_number_integer() && code->get<int64_t>() == 410) {
      needs_relist_ = true;
      return ApplyOutcome::Expired;
    }
    return ApplyOutcome::Failed;
  }
  const bool deleted = *type == "DELETED";
  if (!deleted && *type != "ADDED" && *type != "MODIFIED") {
    return invalid("unknown watch event type \"" + *type + "\"");
  }
  const std::string* name = string_at(metadata, "name");
  if (name == nullptr) {
    return invalid("watch event " + *type + " without metadata.name");
  }
  ObjectKey key{string_or_empty(string_at(metadata, "namespace")), *name};
  advance_resource_version(rv);
  if (!in_scope(key.first)) {
    return ApplyOutcome::Ignored;
  }

  const auto it = objects_.find(key);
  if (deleted) {
    if (it == objects_.end()) {
      return ApplyOutcome::Stale;
    }
    const std::optional<int> order = compare_rv(rv, it->second.resource_version());
    if (order && *order < 0) {
      return ApplyOutcome::Stale;
    }
    erase(it);
    return ApplyOutcome::Deleted;
  }
  const bool is_new = it == objects_.end();
  if (!is_new) {
    const std::optional<int> order = compare_rv(rv, it->second.resource_version());
    if (order ? *order <= 0 : rv == it->second.resource_version()) {
      return ApplyOutcome::Stale;
    }
  }
  store(std::move(key), ObjectVersion{object, rv, now_ms});
  return is_new ? ApplyOutcome::Added : ApplyOutcome::Modified;
}

const CachedObject* ResourceCache::find(std::string_view namespace_, std::string_view name) const {
  const auto it = objects_.find(ObjectKeyLess::View{namespace_, name});
  return it != objects_.end() ? &it->second : nullptr;
}

const std::deque<ObjectVersion>& ResourceCache::history(std::string_view namespace_,
                                                        std::string_view name) const {
  static const std::deque<ObjectVersion> kNone;
  const CachedObject* object = find(namespace_, name);
  return object != nullptr ? object->versions : kNone;
}

size_t ResourceCache::count_in(std::string_view namespace_) const {
  const auto it = counts_.find(namespace_);
  return it != counts_.end() ? it->second : 0;
}

}  // namespace console::model
