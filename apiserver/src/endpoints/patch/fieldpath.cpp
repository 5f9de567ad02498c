// FieldSet: the fieldsV1 set type (structured-merge-diff fieldpath.Set and its serialization).
#include "common/go_quote.h"
#include "endpoints/patch/deep_stack.h"
#include "endpoints/patch/field_manager.h"

namespace apiserver::endpoints::patch {

using nlohmann::json;

namespace {

const FieldSet& empty_set() {
  static const FieldSet kEmpty;
  return kEmpty;
}

// Canonical form of a path element key, or why it is not one.
common::Result<std::string> canonical_element(const std::string& key) {
  auto fail = [&](const char* what) {
    return common::Result<std::string>::failure(
        what + json(key).dump(-1, ' ', false, json::error_handler_t::replace));
  };
  if (key.size() < 2 || key[1] != ':') {
    return fail("unknown path element key ");
  }
  std::string body = key.substr(2);
  switch (key[0]) {
    case 'f':
      return key;
    case 'k': {
      json value = json::parse(body, nullptr, false);
      if (value.is_discarded() || !value.is_object() || value.empty()) {
        return fail("invalid key in ");
      }
      return "k:" + value.dump();
    }
    case 'v': {
      json value = json::parse(body, nullptr, false);
      if (value.is_discarded()) {
        return fail("invalid value in ");
      }
      return "v:" + value.dump();
    }
    case 'i': {
      json value = json::parse(body, nullptr, false);
      if (value.is_discarded() || !value.is_number_integer()) {
        return fail("invalid index in ");
      }
      return "i:" + value.dump();
    }
    default:
      return fail("unknown path element key ");
  }
}

// Adds the paths of `fields`, under `prefix`, to `out`; the error when `fields` is not a fieldsV1
// tree.
std::optional<std::string> parse_into(const json& fields, FieldSet& out, FieldPath& prefix) {
  if (!fields.is_object()) {
    return "expected an object at " + (prefix.empty() ? "the root" : display_path(prefix));
  }
  for (auto it = fields.begin(); it != fields.end(); ++it) {
    if (it.key() == ".") {
      if (prefix.empty()) {
        return std::string("\".\" at the root");
      }
      out.insert(prefix);
      continue;
    }
    auto element = canonical_element(it.key());
    if (!element) {
      return element.error();
    }
    prefix.push_back(std::move(*element));
    if (it.value().is_object() && it.value().empty()) {
      out.insert(prefix);
    } else if (auto error = parse_into(it.value(), out, prefix)) {
      return error;
    }
    prefix.pop_back();
  }
  return std::nullopt;
}

// value.ToString: strings quoted, everything else as JSON.
std::string value_string(const json& value) {
  return value.is_string() ? common::c_quote(value.get<std::string>())
                           : value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

common::Result<FieldSet> FieldSet::from_fields_v1(const json& fields) {
  return with_stack_for(json_depth(fields), [&]() -> common::Result<FieldSet> {
    FieldSet out;
    FieldPath prefix;
    if (auto error = parse_into(fields, out, prefix)) {
      return std::move(*error);
    }
    return out;
  });
}

// Children are taken apart level by level: a set as deep as the object it describes would
// otherwise be destroyed by one recursive call per level.
FieldSet::~FieldSet() {
  std::vector<std::map<std::string, FieldSet>> pending;
  if (!children_.empty()) {
    pending.push_back(std::move(children_));
  }
  while (!pending.empty()) {
    std::map<std::string, FieldSet> level = std::move(pending.back());
    pending.pop_back();
    for (auto& [element, child] : level) {
      if (!child.children_.empty()) {
        pending.push_back(std::move(child.children_));
        child.children_.clear();
      }
    }
  }
}

json FieldSet::to_fields_v1() const {
  json out = json::object();
  for (const auto& member : members_) {
    out[member] = json::object();
  }
  for (const auto& [element, set] : children_) {
    json child = set.to_fields_v1();
    if (members_.count(element) != 0) {
      child["."] = json::object();
    }
    out[element] = std::move(child);
  }
  return out;
}

void FieldSet::insert(const FieldPath& path) {
  FieldSet* node = this;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (i + 1 == path.size()) {
      node->members_.insert(path[i]);
    } else {
      node = &node->children_[path[i]];
    }
  }
}

void FieldSet::set_child(const std::string& element, FieldSet set) {
  if (set.empty()) {
    children_.erase(element);
  } else {
    children_[element] = std::move(set);
  }
}

bool FieldSet::has(const FieldPath& path) const {
  const FieldSet* node = this;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (i + 1 == path.size()) {
      return node->members_.count(path[i]) != 0;
    }
    auto it = node->children_.find(path[i]);
    if (it == node->children_.end()) {
      return false;
    }
    node = &it->second;
  }
  return false;
}

const FieldSet& FieldSet::child(const std::string& element) const {
  auto it = children_.find(element);
  return it == children_.end() ? empty_set() : it->second;
}

FieldSet FieldSet::union_with(const FieldSet& other) const {
  FieldSet out = *this;
  out.add_all(other);
  return out;
}

// In place, so that each level is copied once.
void FieldSet::add_all(const FieldSet& other) {
  members_.insert(other.members_.begin(), other.members_.end());
  for (const auto& [element, set] : other.children_) {
    auto [it, inserted] = children_.try_emplace(element);
    if (inserted) {
      it->second = set;
    } else {
      it->second.add_all(set);
    }
  }
}

FieldSet FieldSet::intersection(const FieldSet& other) const {
  FieldSet out;
  for (const auto& member : members_) {
    if (other.members_.count(member) != 0) {
      out.members_.insert(member);
    }
  }
  for (const auto& [element, set] : children_) {
    auto it = other.children_.find(element);
    if (it == other.children_.end()) {
      continue;
    }
    FieldSet both = set.intersection(it->second);
    if (!both.empty()) {
      out.children_.emplace(element, std::move(both));
    }
  }
  return out;
}

FieldSet FieldSet::difference(const FieldSet& other) const {
  FieldSet out;
  for (const auto& member : members_) {
    if (other.members_.count(member) == 0) {
      out.members_.insert(member);
    }
  }
  for (const auto& [element, set] : children_) {
    auto it = other.children_.find(element);
    if (it == other.children_.end()) {
      out.children_.emplace(element, set);
      continue;
    }
    FieldSet rest = set.difference(it->second);
    if (!rest.empty()) {
      out.children_.emplace(element, std::move(rest));
    }
  }
  return out;
}

FieldSet FieldSet::recursive_difference(const FieldSet& other) const {
  FieldSet out;
  for (const auto& member : members_) {
    if (other.members_.count(member) == 0) {
      out.members_.insert(member);
    }
  }
  for (const auto& [element, set] : children_) {
    if (other.members_.count(element) != 0) {
      continue;
    }
    auto it = other.children_.find(element);
    FieldSet rest = it == other.children_.end() ? set : set.recursive_difference(it->second);
    if (!rest.empty()) {
      out.children_.emplace(element, std::move(rest));
    }
  }
  return out;
}

std::vector<FieldPath> FieldSet::paths() const {
  std::vector<FieldPath> out;
  FieldPath prefix;
  collect_paths(prefix, out);
  return out;
}

void FieldSet::collect_paths(FieldPath& prefix, std::vector<FieldPath>& out) const {
  for (const auto& member : members_) {
    prefix.push_back(member);
    out.push_back(prefix);
    prefix.pop_back();
  }
  for (const auto& [element, set] : children_) {
    prefix.push_back(element);
    set.collect_paths(prefix, out);
    prefix.pop_back();
  }
}

std::string field_element(const std::string& name) {
  return "f:" + name;
}

std::string display_path(const FieldPath& path) {
  std::string out;
  for (const auto& element : path) {
    std::string body = element.size() >= 2 ? element.substr(2) : element;
    char kind = element.empty() ? '?' : element[0];
    if (kind == 'f') {
      out += "." + body;
    } else if (kind == 'i') {
      out += "[" + body + "]";
    } else if (kind == 'v') {
      json value = json::parse(body, nullptr, false);
      out += "[=" + (value.is_discarded() ? body : value_string(value)) + "]";
    } else if (kind == 'k') {
      json keys = json::parse(body, nullptr, false);
      if (!keys.is_object()) {
        out += "[" + body + "]";
        continue;
      }
      std::string inner;
      for (auto it = keys.begin(); it != keys.end(); ++it) {
        if (!inner.empty()) {
          inner += ",";
        }
        inner += it.key() + "=" + value_string(it.value());
      }
      out += "[" + inner + "]";
    } else {
      out += "{{invalid path element}}";
    }
  }
  return out;
}

}  // namespace apiserver::endpoints::patch
