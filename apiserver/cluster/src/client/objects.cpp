#include "client/objects.h"

#include <algorithm>
#include <string_view>

#include "common/rfc3339.h"

namespace cluster {

const json* at(const json& object, std::initializer_list<const char*> path) {
  const json* node = &object;
  for (const char* step : path) {
    if (!node->is_object()) {
      return nullptr;
    }
    auto it = node->find(std::string_view(step));  // its length once, not per comparison
    if (it == node->end()) {
      return nullptr;
    }
    node = &*it;
  }
  return node;
}

std::string string_at(const json& object, std::initializer_list<const char*> path) {
  const json* value = at(object, path);
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

int64_t int_at(const json& object, std::initializer_list<const char*> path, int64_t fallback) {
  const json* value = at(object, path);
  return value != nullptr && value->is_number_integer() ? value->get<int64_t>() : fallback;
}

bool bool_at(const json& object, std::initializer_list<const char*> path, bool fallback) {
  const json* value = at(object, path);
  return value != nullptr && value->is_boolean() ? value->get<bool>() : fallback;
}

std::string name_of(const json& object) {
  return string_at(object, {"metadata", "name"});
}
std::string namespace_of(const json& object) {
  return string_at(object, {"metadata", "namespace"});
}
std::string uid_of(const json& object) {
  return string_at(object, {"metadata", "uid"});
}
bool being_deleted(const json& object) {
  return at(object, {"metadata", "deletionTimestamp"}) != nullptr;
}

namespace {

bool has_value(const json& values, const std::string& value) {
  return values.is_array() && std::any_of(values.begin(), values.end(), [&](const json& v) {
           return v.is_string() && v.get<std::string>() == value;
         });
}

}  // namespace

bool selector_matches(const json& selector, const json& labels) {
  if (!selector.is_object()) {
    return false;
  }
  auto label = [&](const std::string& key) -> std::optional<std::string> {
    if (!labels.is_object()) {
      return std::nullopt;
    }
    auto it = labels.find(key);
    if (it == labels.end() || !it->is_string()) {
      return std::nullopt;
    }
    return it->get<std::string>();
  };
  if (const json* match = at(selector, {"matchLabels"}); match != nullptr && match->is_object()) {
    for (const auto& [key, value] : match->items()) {
      auto have = label(key);
      if (!have || !value.is_string() || *have != value.get<std::string>()) {
        return false;
      }
    }
  }
  if (const json* exprs = at(selector, {"matchExpressions"});
      exprs != nullptr && exprs->is_array()) {
    for (const json& e : *exprs) {
      const std::string key = string_at(e, {"key"});
      const std::string op = string_at(e, {"operator"});
      const json* values = at(e, {"values"});
      const json empty = json::array();
      const json& list = values != nullptr ? *values : empty;
      auto have = label(key);
      if (op == "In") {
        if (!have || !has_value(list, *have))
          return false;
      } else if (op == "NotIn") {
        if (have && has_value(list, *have))
          return false;
      } else if (op == "Exists") {
        if (!have)
          return false;
      } else if (op == "DoesNotExist") {
        if (have)
          return false;
      } else {
        return false;
      }
    }
  }
  return true;
}

const json* controller_ref(const json& object) {
  const json* refs = at(object, {"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->is_array()) {
    return nullptr;
  }
  for (const json& ref : *refs) {
    if (bool_at(ref, {"controller"}, false)) {
      return &ref;
    }
  }
  return nullptr;
}

json controller_owner_ref(const json& owner) {
  return {{"apiVersion", string_at(owner, {"apiVersion"})},
          {"kind", string_at(owner, {"kind"})},
          {"name", name_of(owner)},
          {"uid", uid_of(owner)},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

std::string rfc3339(std::chrono::system_clock::time_point t) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch());
  return common::format_rfc3339(seconds.count()).value_or("1970-01-01T00:00:00Z");
}

std::optional<std::chrono::system_clock::time_point> parse_time(const std::string& text) {
  auto parsed = common::parse_rfc3339(text);
  if (!parsed) {
    return std::nullopt;
  }
  return std::chrono::system_clock::time_point(std::chrono::seconds(parsed->seconds)) +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(
             std::chrono::nanoseconds(parsed->nanos));
}

const json* condition(const json& object, const std::string& type) {
  const json* conditions = at(object, {"status", "conditions"});
  return conditions != nullptr ? condition_in(*conditions, type) : nullptr;
}

const json* condition_in(const json& conditions, const std::string& type) {
  if (!conditions.is_array()) {
    return nullptr;
  }
  for (const json& c : conditions) {
    if (string_at(c, {"type"}) == type) {
      return &c;
    }
  }
  return nullptr;
}

bool condition_true(const json& object, const std::string& type) {
  const json* c = condition(object, type);
  return c != nullptr && string_at(*c, {"status"}) == "True";
}

bool pod_ready(const json& pod) {
  return condition_true(pod, "Ready");
}

void set_condition(json& conditions, const std::string& type, const std::string& status,
                   const std::string& reason, const std::string& message, const std::string& now) {
  if (!conditions.is_array()) {
    conditions = json::array();
  }
  json entry = {{"type", type}, {"status", status}, {"lastTransitionTime", now}};
  if (!reason.empty()) {
    entry["reason"] = reason;
  }
  if (!message.empty()) {
    entry["message"] = message;
  }
  for (json& c : conditions) {
    if (string_at(c, {"type"}) == type) {
      if (string_at(c, {"status"}) == status && c.contains("lastTransitionTime")) {
        entry["lastTransitionTime"] = c["lastTransitionTime"];
      }
      c = std::move(entry);
      return;
    }
  }
  conditions.push_back(std::move(entry));
}

bool has_finalizer(const json& object, const std::string& finalizer) {
  const json* list = at(object, {"metadata", "finalizers"});
  return list != nullptr && list->is_array() &&
         std::find(list->begin(), list->end(), finalizer) != list->end();
}

bool remove_finalizer(json& object, const std::string& finalizer) {
  if (!has_finalizer(object, finalizer)) {
    return false;
  }
  json& list = object["metadata"]["finalizers"];
  json kept = json::array();
  for (const json& f : list) {
    if (f != finalizer) {
      kept.push_back(f);
    }
  }
  list = std::move(kept);
  return true;
}

}  // namespace cluster
