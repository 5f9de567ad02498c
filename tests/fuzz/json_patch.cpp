// RFC 6902 JSON patches (endpoints/patch/json_patch.h) on the base Deployment; the input is the
// patch body.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

#include "endpoints/patch/json_patch.h"
#include "support/json_input.h"
#include "support/patch_base.h"

namespace patch = apiserver::endpoints::patch;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto body = fuzz::parse_json_input(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!body) {
    return 0;
  }
  (void)patch::json_patch_strict_errors(*body);
  auto result = patch::apply_json_patch(fuzz::patch_base(), *body);
  if (const auto* patched = std::get_if<nlohmann::json>(&result)) {
    fuzz::record_update(*patched);
  }
  return 0;
}
