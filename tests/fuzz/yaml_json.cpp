// YAML request bodies to JSON (endpoints/yaml_json.h), and the way back as YAML responses are
// written: a converted document, or the input read as JSON, is written as YAML, read again and
// written as JSON (as the server would store or send it).
#include <cstddef>
#include <cstdint>
#include <string>

#include "endpoints/yaml_json.h"
#include "support/json_input.h"

namespace {

void round_trip(const nlohmann::json& doc) {
  const std::string yaml = apiserver::endpoints::json_to_yaml(doc);
  if (auto again = apiserver::endpoints::yaml_to_json(yaml)) {
    (void)again->dump();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (auto doc = apiserver::endpoints::yaml_to_json(text)) {
    (void)doc->dump();
    round_trip(*doc);
  }
  if (auto doc = fuzz::parse_json_input(text)) {
    round_trip(*doc);
  }
  return 0;
}
