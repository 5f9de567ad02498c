// Typed operations over JSON values (structured-merge-diff typed.TypedValue): field sets,
// comparison, merge, item removal, and the Go zero object of a kind.
#include "apiserver/facts.h"
#include "endpoints/patch/field_manager.h"

#include <map>
#include <mutex>

namespace apiserver::endpoints::patch {

using nlohmann::json;
using registry::SchemaIndex;

namespace {

// How a schema node behaves; Deduced decides by the value (see effective()).
enum class Shape { Scalar, Atomic, AtomicList, Struct, Map, SetList, MapList, Deduced };

struct Node {
  Shape shape = Shape::Deduced;
  const json* schema = nullptr;
};

bool extension_is(const SchemaIndex& index, const json* node, const char* name, const char* v) {
  const json* value = index.extension(node, name);
  return value != nullptr && value->is_string() && *value == v;
}

Node classify(const SchemaIndex& index, const json* schema) {
  const json* resolved = index.resolve(schema);
  if (resolved == nullptr || !resolved->is_object()) {
    return {Shape::Deduced, schema};
  }
  std::string type = index.type(schema);
  if (type == "array") {
    if (extension_is(index, schema, "x-kubernetes-list-type", "set")) {
      return {Shape::SetList, schema};
    }
    if (extension_is(index, schema, "x-kubernetes-list-type", "map")) {
      return {Shape::MapList, schema};
    }
    return {Shape::AtomicList, schema};
  }
  bool has_properties = resolved->contains("properties");
  bool has_additional = index.additional_properties(schema) != nullptr;
  if (type == "object" || has_properties || has_additional) {
    if (!has_properties && !has_additional) {
      return {Shape::Deduced, schema};  // RawExtension, FieldsV1: upstream's untyped type
    }
    if (extension_is(index, schema, "x-kubernetes-map-type", "atomic")) {
      return {Shape::Atomic, schema};
    }
    return {has_properties ? Shape::Struct : Shape::Map, schema};
  }
  return type.empty() ? Node{Shape::Deduced, schema} : Node{Shape::Scalar, schema};
}

// The shape used for `value`: deduced values are granular maps, atomic lists or scalars.
Shape effective(const Node& node, const json& value) {
  if (node.shape != Shape::Deduced) {
    return node.shape;
  }
  if (value.is_object()) {
    return Shape::Map;
  }
  return value.is_array() ? Shape::AtomicList : Shape::Scalar;
}

bool is_granular_map(Shape shape) {
  return shape == Shape::Struct || shape == Shape::Map;
}
bool is_granular_list(Shape shape) {
  return shape == Shape::SetList || shape == Shape::MapList;
}

class Walker {
 public:
  explicit Walker(const ObjectType& type)
      : index_(type.index()), root_{Shape::Struct, type.root()} {
    if (type.root() == nullptr) {
      root_.shape = Shape::Deduced;
    }
  }

  Node root() const { return root_; }

  // The type of `key` inside a struct or map; *named says whether it is a declared struct field.
  Node field(const Node& node, const std::string& key, bool* named) const {
    *named = false;
    if (node.shape == Shape::Struct) {
      if (const json* property = index_.property(node.schema, key)) {
        *named = true;
        return classify(index_, property);
      }
      return {Shape::Deduced, nullptr};
    }
    if (node.shape == Shape::Map) {
      const json* value = index_.additional_properties(node.schema);
      return value == nullptr ? Node{Shape::Deduced, nullptr} : classify(index_, value);
    }
    return {Shape::Deduced, nullptr};
  }

  Node item(const Node& list) const {
    const json* items = index_.items(list.schema);
    return items == nullptr ? Node{Shape::Deduced, nullptr} : classify(index_, items);
  }

  // The path element of a set-list or map-list item.
  std::string item_element(const Node& list, const json& item) const {
    if (list.shape == Shape::SetList) {
      return "v:" + item.dump(-1, ' ', false, json::error_handler_t::replace);
    }
    json keys = json::object();
    const json* names = index_.extension(list.schema, "x-kubernetes-list-map-keys");
    if (names != nullptr && names->is_array() && item.is_object()) {
      for (const json& name : *names) {
        if (!name.is_string()) {
          continue;
        }
        const std::string key = name.get<std::string>();
        if (auto it = item.find(key); it != item.end() && !it->is_null()) {
          keys[key] = *it;
        } else if (key == "protocol") {
          // The OpenAPI default the facts leave out; upstream keys ports by it when omitted.
          keys[key] = "TCP";
        }
      }
    }
    return "k:" + keys.dump(-1, ' ', false, json::error_handler_t::replace);
  }

  // The fields below `value` (relative to it). Sets are built bottom-up, so each node costs the
  // same whatever its depth.
  FieldSet to_set(const Node& node, const json& value) const {
    FieldSet out;
    Shape shape = effective(node, value);
    if (is_granular_map(shape) && value.is_object()) {
      for (auto it = value.begin(); it != value.end(); ++it) {
        bool named = false;
        Node child = field(node, it.key(), &named);
        const std::string element = field_element(it.key());
        const json& v = it.value();
        if (v.is_null() || (v.is_object() && v.empty()) || !named || is_leaf(child, v)) {
          out.insert({element});
        }
        out.set_child(element, to_set(child, v));
      }
    } else if (is_granular_list(shape) && value.is_array()) {
      Node item_type = item(node);
      for (const json& entry : value) {
        const std::string element = item_element(node, entry);
        out.insert({element});
        out.set_child(element, to_set(item_type, entry));
      }
    }
    return out;
  }

  // What happened to one node, as its parent records it.
  enum class Change { None, Added, Modified, Removed };

  // Compares the nodes lhs and rhs: changes below them go to `out` (relative paths), the change
  // of the node itself is returned.
  Change compare(const Node& node, const json* lhs, const json* rhs, Comparison& out) const {
    const json& any = rhs != nullptr ? *rhs : *lhs;
    Shape shape = effective(node, any);
    if (node.shape == Shape::Deduced && lhs != nullptr && rhs != nullptr &&
        effective(node, *lhs) != shape) {
      shape = Shape::Scalar;
    }
    auto fits = [&](const json* v) {
      if (v == nullptr || v->is_null()) {
        return true;
      }
      return is_granular_map(shape) ? v->is_object() : v->is_array();
    };
    if ((!is_granular_map(shape) && !is_granular_list(shape)) || !fits(lhs) || !fits(rhs)) {
      if (lhs == nullptr) {
        return Change::Added;
      }
      if (rhs == nullptr) {
        return Change::Removed;
      }
      return *lhs != *rhs ? Change::Modified : Change::None;
    }
    if (is_granular_map(shape)) {
      std::set<std::string> keys;
      for (const json* side : {lhs, rhs}) {
        if (side != nullptr && side->is_object()) {
          for (auto it = side->begin(); it != side->end(); ++it) {
            keys.insert(it.key());
          }
        }
      }
      for (const auto& key : keys) {
        bool named = false;
        Node child = field(node, key, &named);
        Comparison below;
        Change change = compare(child, member(lhs, key), member(rhs, key), below);
        record(out, field_element(key), change, std::move(below));
      }
    } else {
      Node item_type = item(node);
      std::map<std::string, const json*> left = items_by_element(node, lhs);
      std::map<std::string, const json*> right = items_by_element(node, rhs);
      std::set<std::string> elements;
      for (const auto& [element, ignored] : left) {
        elements.insert(element);
      }
      for (const auto& [element, ignored] : right) {
        elements.insert(element);
      }
      for (const auto& element : elements) {
        auto l = left.find(element);
        auto r = right.find(element);
        Comparison below;
        Change change = compare(item_type, l == left.end() ? nullptr : l->second,
                                r == right.end() ? nullptr : r->second, below);
        record(out, element, change, std::move(below));
      }
    }
    if (lhs == nullptr) {
      return Change::Added;
    }
    return rhs == nullptr ? Change::Removed : Change::None;
  }

  // Merges `rhs` into `lhs` in place.
  void merge(const Node& node, json& lhs, const json& rhs) const {
    Shape shape = effective(node, rhs);
    if (is_granular_map(shape) && rhs.is_object()) {
      if (node.shape == Shape::Deduced && !lhs.is_object()) {
        lhs = rhs;
        return;
      }
      if (!lhs.is_object()) {
        lhs = json::object();
      }
      for (auto it = rhs.begin(); it != rhs.end(); ++it) {
        if (it.value().is_null()) {
          lhs.erase(it.key());
          continue;
        }
        bool named = false;
        Node child = field(node, it.key(), &named);
        auto existing = lhs.find(it.key());
        if (existing == lhs.end()) {
          lhs[it.key()] = it.value();
        } else {
          merge(child, *existing, it.value());
        }
      }
      return;
    }
    if (is_granular_list(shape) && rhs.is_array() && lhs.is_array()) {
      Node item_type = item(node);
      std::map<std::string, const json*> right = items_by_element(node, &rhs);
      std::set<std::string> used;
      json out = json::array();
      for (json& entry : lhs) {
        std::string element = item_element(node, entry);
        auto r = right.find(element);
        if (r != right.end() && used.insert(element).second) {
          merge(item_type, entry, *r->second);
          out.push_back(std::move(entry));
        } else if (r == right.end()) {
          out.push_back(std::move(entry));
        }
      }
      for (const json& entry : rhs) {
        if (used.insert(item_element(node, entry)).second) {
          out.push_back(entry);
        }
      }
      lhs = std::move(out);
      return;
    }
    lhs = rhs;
  }

  // Returns the value without the members of `set`; *emptied when removal left nothing.
  json remove(const Node& node, const json& value, const FieldSet& set, bool* emptied) const {
    *emptied = false;
    Shape shape = effective(node, value);
    bool removed = false;
    if (is_granular_map(shape) && value.is_object()) {
      json out = json::object();
      for (auto it = value.begin(); it != value.end(); ++it) {
        std::string element = field_element(it.key());
        if (set.is_member(element)) {
          removed = true;
          continue;
        }
        const FieldSet& below = set.child(element);
        if (below.empty()) {
          out[it.key()] = it.value();
          continue;
        }
        bool named = false;
        bool child_emptied = false;
        json kept = remove(field(node, it.key(), &named), it.value(), below, &child_emptied);
        if (child_emptied) {
          removed = true;
        } else {
          out[it.key()] = std::move(kept);
        }
      }
      *emptied = removed && out.empty();
      return out;
    }
    if (is_granular_list(shape) && value.is_array()) {
      Node item_type = item(node);
      json out = json::array();
      for (const json& entry : value) {
        std::string element = item_element(node, entry);
        if (set.is_member(element)) {
          removed = true;
          continue;
        }
        const FieldSet& below = set.child(element);
        if (below.empty()) {
          out.push_back(entry);
          continue;
        }
        bool child_emptied = false;
        json kept = remove(item_type, entry, below, &child_emptied);
        if (child_emptied) {
          removed = true;
        } else {
          out.push_back(std::move(kept));
        }
      }
      *emptied = removed && out.empty();
      return out;
    }
    return value;
  }

  FieldSet ensure_named(const Node& node, const FieldSet& set) const {
    FieldSet out;
    for (const auto& member : set.members()) {
      out.insert({member});
    }
    for (const auto& [element, below] : set.children()) {
      Node child{Shape::Deduced, nullptr};
      if (element.rfind("f:", 0) == 0) {
        bool named = false;
        child = field(node, element.substr(2), &named);
        if (named) {
          out.insert({element});
        }
      } else if (is_granular_list(node.shape)) {
        child = item(node);
      }
      out.set_child(element, ensure_named(child, below));
    }
    return out;
  }

 private:
  static const json* member(const json* object, const std::string& key) {
    if (object == nullptr || !object->is_object()) {
      return nullptr;
    }
    auto it = object->find(key);
    return it == object->end() ? nullptr : &*it;
  }

  // A value with no fields of its own: its parent owns it as a member.
  static bool is_leaf(const Node& node, const json& value) {
    Shape shape = effective(node, value);
    return !is_granular_map(shape) && !is_granular_list(shape);
  }

  // Puts one child's comparison under `element`.
  static void record(Comparison& out, const std::string& element, Change change, Comparison below) {
    if (change == Change::Added) {
      out.added.insert({element});
    } else if (change == Change::Modified) {
      out.modified.insert({element});
    } else if (change == Change::Removed) {
      out.removed.insert({element});
    }
    out.added.set_child(element, std::move(below.added));
    out.modified.set_child(element, std::move(below.modified));
    out.removed.set_child(element, std::move(below.removed));
  }

  std::map<std::string, const json*> items_by_element(const Node& list, const json* value) const {
    std::map<std::string, const json*> out;
    if (value != nullptr && value->is_array()) {
      for (const json& entry : *value) {
        out.emplace(item_element(list, entry), &entry);  // duplicates: the first one counts
      }
    }
    return out;
  }

  const SchemaIndex& index_;
  Node root_;
};

// ---- zero objects from the protobuf facts

const json& proto_facts() {
  static const json facts = [] {
    std::string_view text = facts::proto_json();
    return json::parse(text.begin(), text.end());
  }();
  return facts;
}

json zero_scalar(const std::string& proto_type) {
  if (proto_type == "string") {
    return "";
  }
  if (proto_type == "bool") {
    return false;
  }
  return 0;
}

json zero_message(const json& messages, const std::string& name, int depth) {
  // Types whose JSON form is a scalar (custom MarshalJSON).
  if (name == "k8s.io.apimachinery.pkg.apis.meta.v1.Time" ||
      name == "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime" ||
      name == "k8s.io.apimachinery.pkg.runtime.RawExtension" ||
      name == "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1") {
    return nullptr;
  }
  if (name == "k8s.io.apimachinery.pkg.api.resource.Quantity") {
    return "0";
  }
  if (name == "k8s.io.apimachinery.pkg.util.intstr.IntOrString") {
    return 0;
  }
  if (name == "k8s.io.apimachinery.pkg.apis.meta.v1.Duration") {
    return "0s";
  }
  json out = json::object();
  auto message = messages.find(name);
  if (message == messages.end() || depth > 32) {
    return out;
  }
  const json& fields = message->value("fields", json::array());
  for (const json& field : fields) {
    std::string json_name = field.value("json", field.value("name", std::string()));
    if (json_name.empty() || json_name == "-") {
      continue;
    }
    std::string go = field.value("go", std::string());
    bool omitempty = field.value("omitempty", false);
    std::string type = field.value("type", std::string());
    if (go == "struct") {
      json value = zero_message(messages, type, depth + 1);
      if (field.value("inline", false) && value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it) {
          out[it.key()] = it.value();
        }
      } else {
        out[json_name] = std::move(value);
      }
    } else if (go == "slice" || go == "map" || go == "pointer") {
      if (!omitempty) {
        out[json_name] = nullptr;
      }
    } else if (!omitempty) {
      out[json_name] = zero_scalar(type);
    }
  }
  return out;
}

json build_zero_object(const std::string& gv, const std::string& kind) {
  const json& facts = proto_facts();
  auto kinds = facts.find("kinds");
  auto messages = facts.find("messages");
  if (kinds == facts.end() || messages == facts.end()) {
    return json::object();
  }
  auto it = kinds->find(gv + " " + kind);
  if (it == kinds->end() || !it->is_string()) {
    return json::object();
  }
  return zero_message(*messages, it->get<std::string>(), 0);
}

}  // namespace

std::optional<ObjectType> ObjectType::builtin(const std::string& group, const std::string& version,
                                              const std::string& kind) {
  const SchemaIndex& index = SchemaIndex::builtin();
  const json* root = index.kind(group, version, kind);
  if (root == nullptr) {
    return std::nullopt;
  }
  return ObjectType(index, root, group, version, kind);
}

FieldSet to_field_set(const ObjectType& type, const json& value) {
  Walker walker(type);
  return walker.to_set(walker.root(), value);
}

Comparison compare(const ObjectType& type, const json& lhs, const json& rhs) {
  Walker walker(type);
  Comparison out;
  walker.compare(walker.root(), &lhs, &rhs, out);
  return out;
}

json merge(const ObjectType& type, const json& live, const json& config) {
  Walker walker(type);
  json out = live;
  walker.merge(walker.root(), out, config);
  return out;
}

json remove_items(const ObjectType& type, const json& value, const FieldSet& set) {
  Walker walker(type);
  bool emptied = false;
  return walker.remove(walker.root(), value, set, &emptied);
}

FieldSet ensure_named_fields_are_members(const ObjectType& type, const FieldSet& set) {
  Walker walker(type);
  return walker.ensure_named(walker.root(), set);
}

json zero_object(const ObjectType& type) {
  if (type.kind().empty()) {
    return json::object();
  }
  // The facts never change: each kind's zero object is built once (every write needs it).
  static std::mutex mu;
  static std::map<std::string, json> built;  // by "group/version kind"
  std::string gv = type.group().empty() ? type.version() : type.group() + "/" + type.version();
  std::string id = gv + " " + type.kind();
  std::lock_guard lock(mu);
  auto [it, inserted] = built.try_emplace(id);
  if (inserted) {
    it->second = build_zero_object(gv, type.kind());
  }
  return it->second;
}

}  // namespace apiserver::endpoints::patch
