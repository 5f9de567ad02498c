// Strategic merge patches (endpoints/patch/strategic_merge.h) on the base Deployment with the
// apps/v1 schema; the input is the patch body.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

#include "endpoints/patch/strategic_merge.h"
#include "registry/schema_index.h"
#include "support/json_input.h"
#include "support/patch_base.h"

namespace patch = apiserver::endpoints::patch;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto body = fuzz::parse_json_input(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!body) {
    return 0;
  }
  const auto& schemas = apiserver::registry::SchemaIndex::builtin();
  auto result = patch::apply_strategic_merge_patch(
      schemas, schemas.kind("apps", "v1", "Deployment"), fuzz::patch_base(), *body);
  if (const auto* patched = std::get_if<nlohmann::json>(&result)) {
    fuzz::record_update(*patched);
  } else {
    (void)patch::to_http_status(std::get<patch::SmpError>(result));
  }
  return 0;
}
