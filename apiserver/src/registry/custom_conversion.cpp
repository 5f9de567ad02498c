#include "registry/custom_conversion.h"

#include <algorithm>

#include "registry/json_access.h"
#include "registry/objects.h"
#include "registry/validation_rules.h"

namespace apiserver::registry {

using nlohmann::json;

namespace {

// Go's %T of a decoded JSON value.
std::string go_type(const json& value) {
  switch (value.type()) {
    case json::value_t::object:
      return "map[string]interface {}";
    case json::value_t::array:
      return "[]interface {}";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "bool";
    case json::value_t::null:
      return "<nil>";
    default:
      return "float64";
  }
}

// upstream's validateConvertedObject: the strategy may not change what the object is.
std::string converted_object_error(const json& in, const json& out) {
  const std::pair<const char*, std::string> checks[] = {
      {"kind", "kind"}, {"name", "name"}, {"namespace", "namespace"}, {"uid", "UID"}};
  for (const auto& [key, label] : checks) {
    const bool top = std::string(key) == "kind";
    const std::string before = top ? string_at(in, {key}) : string_at(in, {"metadata", key});
    const std::string after = top ? string_at(out, {key}) : string_at(out, {"metadata", key});
    if (before != after) {
      return "must have the same " + label + ": " + before + " != " + after;
    }
  }
  return "";
}

// upstream's restoreObjectMeta: metadata comes back from the original, except labels and
// annotations, which the strategy may change (and which are then validated).
std::string restore_metadata(const json& original, json& converted) {
  const bool had = original.contains("metadata");
  if (!converted.contains("metadata")) {
    return had ? "missing metadata in converted object" : "";
  }
  const json& answered = converted["metadata"];
  if (!answered.is_object()) {
    return "invalid metadata of type " + go_type(answered) + " in converted object";
  }
  json restored = had ? original["metadata"] : json::object();
  if (!restored.is_object()) {
    return "invalid metadata in input object";
  }
  for (const char* field : {"labels", "annotations"}) {
    auto it = answered.find(field);
    if (it == answered.end() || it->is_null()) {
      restored.erase(field);
      continue;
    }
    if (!it->is_object()) {
      return std::string("invalid metadata.") + field + " of type " + go_type(*it) +
             " in converted object";
    }
    for (const auto& [key, value] : it->items()) {
      if (!value.is_string()) {
        return std::string("metadata.") + field + "[" + key + "] must be a string, but is " +
               go_type(value) + " in converted object";
      }
    }
    if (restored.value(field, json::object()) != *it) {
      rules::Errors errors;
      if (std::string(field) == "labels") {
        rules::validate_labels(*it, "metadata.labels", errors);
      } else {
        rules::validate_annotations(*it, "metadata.annotation", errors);
      }
      if (!errors.empty()) {
        return render_field_errors(errors);
      }
    }
    restored[field] = *it;
  }
  converted["metadata"] = std::move(restored);
  return "";
}

errors::Status conversion_failure(const std::string& message) {
  return errors::failure(500, "", message);
}

}  // namespace

common::Result<std::vector<json>> NoneConverter::convert(const std::vector<json>& objects,
                                                         const std::string& api_version,
                                                         const std::string&) const {
  std::vector<json> out = objects;
  for (auto& object : out) {
    object["apiVersion"] = api_version;
  }
  return out;
}

std::string gvk_text(const std::string& api_version, const std::string& kind) {
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string version =
      slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  return group + "/" + version + ", Kind=" + kind;
}

std::optional<errors::Status> convert_custom(const CustomConverter* converter,
                                             const std::vector<std::string>& valid_versions,
                                             std::vector<json*> objects,
                                             const std::string& api_version,
                                             const std::string& list_kind) {
  static const NoneConverter none;
  if (converter == nullptr) {
    converter = &none;
  }
  auto valid = [&](const std::string& v) {
    return std::find(valid_versions.begin(), valid_versions.end(), v) != valid_versions.end();
  };
  if (!valid(api_version)) {
    return conversion_failure("request to convert CR to an invalid group/version: " + api_version);
  }
  std::vector<size_t> pending;
  std::vector<json> inputs;
  for (size_t i = 0; i < objects.size(); ++i) {
    const std::string from = string_at(*objects[i], {"apiVersion"});
    if (!valid(from)) {
      return conversion_failure(
          list_kind.empty() ? "request to convert CR from an invalid group/version: " + from
                            : "request to convert CR list failed, list index " + std::to_string(i) +
                                  " has invalid group/version: " + from);
    }
    if (from != api_version) {
      pending.push_back(i);
      inputs.push_back(*objects[i]);
    }
  }
  if (pending.empty()) {
    return std::nullopt;
  }
  // Upstream names what it converts: the object, or the list at the wanted version.
  const std::string what = list_kind.empty() ? gvk_text(string_at(inputs.front(), {"apiVersion"}),
                                                        string_at(inputs.front(), {"kind"}))
                                             : gvk_text(api_version, list_kind);
  auto converted = converter->convert(
      inputs, api_version, list_kind.empty() ? "/, Kind=" : gvk_text(api_version, list_kind));
  if (!converted) {
    return conversion_failure("conversion for " + what + " failed: " + converted.error());
  }
  if (converted->size() != inputs.size()) {
    return conversion_failure("conversion for " + what + " returned " +
                              std::to_string(converted->size()) + " objects, expected " +
                              std::to_string(inputs.size()));
  }
  for (size_t n = 0; n < inputs.size(); ++n) {
    json& out = (*converted)[n];
    const std::string at = " at index " + std::to_string(n + 1) + ": ";
    const std::string got = string_at(out, {"apiVersion"});
    if (!out.is_object() || got != api_version) {
      return conversion_failure("conversion for " + what + " returned invalid converted object" +
                                at + "invalid groupVersion (expected " + api_version +
                                ", received " + got + ")");
    }
    if (string_at(out, {"kind"}) != string_at(inputs[n], {"kind"})) {
      return conversion_failure("conversion for " + what + " returned invalid converted object" +
                                at + "invalid kind (expected " + string_at(inputs[n], {"kind"}) +
                                ", received " + string_at(out, {"kind"}) + ")");
    }
    if (auto error = converted_object_error(inputs[n], out); !error.empty()) {
      return conversion_failure("conversion for " + what + " returned invalid converted object" +
                                at + error);
    }
    if (auto error = restore_metadata(inputs[n], out); !error.empty()) {
      return conversion_failure("conversion for " + what + " returned invalid metadata in object" +
                                at + error);
    }
  }
  for (size_t n = 0; n < pending.size(); ++n) {
    *objects[pending[n]] = std::move((*converted)[n]);
  }
  return std::nullopt;
}

}  // namespace apiserver::registry
