// RFC 7386 merge patches (endpoints/patch/merge_patch.h) on the base Deployment; the input is the
// patch body. The patch that leads back from the result is computed too.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

#include "endpoints/patch/merge_patch.h"
#include "support/json_input.h"
#include "support/patch_base.h"

namespace patch = apiserver::endpoints::patch;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto body = fuzz::parse_json_input(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!body) {
    return 0;
  }
  (void)patch::merge_patch_strict_error(*body);
  auto result = patch::apply_merge_patch(fuzz::patch_base(), *body);
  if (const auto* patched = std::get_if<nlohmann::json>(&result)) {
    (void)patch::create_merge_patch(*patched, fuzz::patch_base()).dump();
    fuzz::record_update(*patched);
  }
  return 0;
}
