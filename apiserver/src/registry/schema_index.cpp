#include "registry/schema_index.h"

#include "apiserver/facts.h"

namespace apiserver::registry {

using nlohmann::json;

const SchemaIndex& SchemaIndex::builtin() {
  static const SchemaIndex index(facts::schemas_json());
  return index;
}

SchemaIndex::SchemaIndex(std::string_view schemas_json)
    : SchemaIndex(json::parse(schemas_json.begin(), schemas_json.end())) {}

SchemaIndex::SchemaIndex(json document) {
  if (document.is_object() && document.contains("definitions") &&
      document["definitions"].is_object()) {
    definitions_ = std::move(document["definitions"]);
  } else {
    definitions_ = json::object();
  }
  build_kind_index();
}

void SchemaIndex::build_kind_index() {
  for (auto it = definitions_.begin(); it != definitions_.end(); ++it) {
    const json& definition = it.value();
    auto gvks = definition.find("x-kubernetes-group-version-kind");
    if (gvks == definition.end() || !gvks->is_array()) {
      continue;
    }
    for (const json& gvk : *gvks) {
      if (!gvk.is_object()) {
        continue;
      }
      std::string key = gvk.value("group", std::string()) + "/" +
                        gvk.value("version", std::string()) + "/" +
                        gvk.value("kind", std::string());
      kinds_.emplace(std::move(key), &definition);
    }
  }
}

const json* SchemaIndex::kind(const std::string& group, const std::string& version,
                              const std::string& kind) const {
  auto it = kinds_.find(group + "/" + version + "/" + kind);
  return it == kinds_.end() ? nullptr : it->second;
}

const json* SchemaIndex::definition(const std::string& name) const {
  auto it = definitions_.find(name);
  return it == definitions_.end() ? nullptr : &*it;
}

const json* SchemaIndex::resolve(const json* node) const {
  // Definitions do not reference themselves directly; the bound only guards broken facts.
  for (int depth = 0; node != nullptr && depth < 16; ++depth) {
    if (!node->is_object()) {
      return node;
    }
    auto ref = node->find("$ref");
    if (ref == node->end() || !ref->is_string()) {
      return node;
    }
    node = definition(ref->get<std::string>());
  }
  return node;
}

const json* SchemaIndex::property(const json* node, const std::string& name) const {
  node = resolve(node);
  if (node == nullptr || !node->is_object()) {
    return nullptr;
  }
  auto properties = node->find("properties");
  if (properties == node->end() || !properties->is_object()) {
    return nullptr;
  }
  auto it = properties->find(name);
  return it == properties->end() ? nullptr : &*it;
}

const json* SchemaIndex::items(const json* node) const {
  node = resolve(node);
  if (node == nullptr || !node->is_object()) {
    return nullptr;
  }
  auto it = node->find("items");
  return it == node->end() || !it->is_object() ? nullptr : &*it;
}

const json* SchemaIndex::additional_properties(const json* node) const {
  node = resolve(node);
  if (node == nullptr || !node->is_object()) {
    return nullptr;
  }
  auto it = node->find("additionalProperties");
  return it == node->end() || !it->is_object() ? nullptr : &*it;
}

std::string SchemaIndex::type(const json* node) const {
  node = resolve(node);
  if (node == nullptr || !node->is_object()) {
    return "";
  }
  auto it = node->find("type");
  return it != node->end() && it->is_string() ? it->get<std::string>() : "";
}

const json* SchemaIndex::extension(const json* node, const std::string& name) const {
  if (node == nullptr || !node->is_object()) {
    return nullptr;
  }
  if (auto it = node->find(name); it != node->end()) {
    return &*it;
  }
  const json* target = resolve(node);
  if (target == nullptr || target == node || !target->is_object()) {
    return nullptr;
  }
  auto it = target->find(name);
  return it == target->end() ? nullptr : &*it;
}

}  // namespace apiserver::registry
