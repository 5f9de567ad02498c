// Reading the protobuf facts: the embedded proto.json parsed once into messages and fields.
#include "protobuf/facts.h"

#include <cstdlib>
#include <iostream>
#include <utility>

#include <nlohmann/json.hpp>

#include "apiserver/facts.h"

namespace apiserver::protobuf::detail {
namespace {

using nlohmann::json;

[[noreturn]] void facts_broken(const std::string& what) {
  std::cerr << "apiserver: proto facts are broken: " << what << std::endl;
  std::abort();
}

Scalar scalar_of(const std::string& name) {
  static const std::unordered_map<std::string, Scalar> kScalars = {
      {"int32", Scalar::Int32},       {"int64", Scalar::Int64},       {"uint32", Scalar::Uint32},
      {"uint64", Scalar::Uint64},     {"bool", Scalar::Bool},         {"enum", Scalar::Enum},
      {"string", Scalar::String},     {"bytes", Scalar::Bytes},       {"double", Scalar::Double},
      {"float", Scalar::Float},       {"fixed32", Scalar::Fixed32},   {"fixed64", Scalar::Fixed64},
      {"sfixed32", Scalar::Sfixed32}, {"sfixed64", Scalar::Sfixed64}, {"sint32", Scalar::Sint32},
      {"sint64", Scalar::Sint64}};
  auto it = kScalars.find(name);
  return it == kScalars.end() ? Scalar::Message : it->second;
}

Special special_of(const std::string& name) {
  static const std::unordered_map<std::string, Special> kSpecials = {
      {"k8s.io.apimachinery.pkg.apis.meta.v1.Time", Special::Time},
      {"k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime", Special::MicroTime},
      {"k8s.io.apimachinery.pkg.apis.meta.v1.Duration", Special::Duration},
      {"k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1", Special::FieldsV1},
      {"k8s.io.apimachinery.pkg.api.resource.Quantity", Special::Quantity},
      {"k8s.io.apimachinery.pkg.api.resource.QuantityValue", Special::Quantity},
      {"k8s.io.apimachinery.pkg.util.intstr.IntOrString", Special::IntOrString},
      {"k8s.io.apimachinery.pkg.runtime.RawExtension", Special::RawExtension}};
  auto it = kSpecials.find(name);
  return it == kSpecials.end() ? Special::None : it->second;
}

GoKind go_kind_of(const std::string& go) {
  if (go == "pointer") {
    return GoKind::Pointer;
  }
  if (go == "struct") {
    return GoKind::Struct;
  }
  if (go == "slice") {
    return GoKind::Slice;
  }
  if (go == "map") {
    return GoKind::Map;
  }
  return GoKind::Value;
}

std::unique_ptr<Facts> load_facts() {
  auto facts = std::make_unique<Facts>();
  json doc;
  try {
    doc = json::parse(facts::proto_json());
  } catch (const json::exception& e) {
    facts_broken(e.what());
  }
  const json& messages = doc.at("messages");
  for (auto it = messages.begin(); it != messages.end(); ++it) {
    auto m = std::make_unique<Message>();
    m->name = it.key();
    m->special = special_of(it.key());
    m->json_array = it->value("json", "") == "array";
    facts->messages.emplace(it.key(), std::move(m));
  }
  auto resolve = [&](const std::string& type, const std::string& where) -> const Message* {
    auto found = facts->messages.find(type);
    if (found == facts->messages.end()) {
      facts_broken(where + " names unknown message " + type);
    }
    return found->second.get();
  };
  for (auto it = messages.begin(); it != messages.end(); ++it) {
    Message& m = *facts->messages.at(it.key());
    for (const json& f : it->at("fields")) {
      Field field;
      field.number = f.at("number").get<std::uint32_t>();
      const std::string name = f.at("name").get<std::string>();
      field.json_name = f.value("json", name);
      field.hidden = field.json_name == "-";
      field.inline_ = f.value("inline", false);
      if (field.inline_) {
        field.json_name.clear();
      }
      field.omitempty = f.value("omitempty", false);
      field.repeated = f.value("repeated", false);
      field.go = go_kind_of(f.value("go", ""));
      const std::string type = f.at("type").get<std::string>();
      const std::string where = m.name + "." + name;
      if (type == "map") {
        field.is_map = true;
        field.map_key = scalar_of(f.at("map_key").get<std::string>());
        const std::string value = f.at("map_value").get<std::string>();
        field.type = scalar_of(value);
        if (field.map_key == Scalar::Message || field.map_key == Scalar::Bytes) {
          facts_broken(where + ": unsupported map key");
        }
      } else {
        field.type = scalar_of(type);
      }
      if (field.type == Scalar::Message) {
        field.message = resolve(field.is_map ? f.at("map_value").get<std::string>() : type, where);
      }
      m.fields.push_back(std::move(field));
    }
    std::sort(m.fields.begin(), m.fields.end(),
              [](const Field& a, const Field& b) { return a.number < b.number; });
    if (m.json_array && (m.fields.size() != 1 || !m.fields[0].repeated)) {
      facts_broken(m.name + ": array message without one repeated field");
    }
  }
  const json& kinds = doc.at("kinds");
  for (auto it = kinds.begin(); it != kinds.end(); ++it) {
    facts->kinds.emplace(it.key(), resolve(it->get<std::string>(), it.key()));
  }
  return facts;
}

}  // namespace

const Facts& proto_facts() {
  static const std::unique_ptr<Facts> facts = load_facts();
  return *facts;
}

}  // namespace apiserver::protobuf::detail
