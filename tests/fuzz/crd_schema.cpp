// CRD structural schemas and custom resources (registry/crd_schema.h). Input: one JSON object
// {"schema": <openAPIV3Schema>, "value": <custom resource>}; the schema is parsed, then the value
// pruned, defaulted and validated in the order of a write.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "registry/crd_schema.h"
#include "registry/objects.h"
#include "support/json_input.h"

namespace registry = apiserver::registry;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto input = fuzz::parse_json_input(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!input || !input->is_object() || !input->contains("schema")) {
    return 0;
  }
  auto schema = registry::CrdSchema::parse((*input)["schema"]);
  if (!schema) {
    return 0;
  }
  nlohmann::json value =
      input->contains("value") ? std::move((*input)["value"]) : nlohmann::json::object();
  (void)schema->prune(value);
  schema->apply_defaults(value);
  (void)registry::render_field_errors(schema->validate(value));
  (void)value.dump();
  return 0;
}
