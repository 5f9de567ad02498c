// Server-side apply (endpoints/patch/field_manager.h) of a YAML configuration by manager "fuzz",
// as a create and over the base Deployment (which managers "kubectl-create" and "kubectl" own
// parts of). Input: the configuration, after an optional first line "force" (?force=true).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "endpoints/patch/field_manager.h"
#include "endpoints/yaml_json.h"
#include "support/patch_base.h"

namespace patch = apiserver::endpoints::patch;

namespace {

void apply(const nlohmann::json* live, const nlohmann::json& config, bool force) {
  auto result = patch::apply(fuzz::deployment_type(), live, config, fuzz::patch_writer(), force);
  if (result.outcome == patch::ApplyResult::Outcome::Ok) {
    (void)result.object.dump();
  } else if (result.outcome == patch::ApplyResult::Outcome::Conflict) {
    (void)patch::conflict_status(result.conflicts).dump();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  constexpr std::string_view kForce = "force\n";
  const bool force = input.substr(0, kForce.size()) == kForce;
  if (force) {
    input.remove_prefix(kForce.size());
  }
  auto config = apiserver::endpoints::yaml_to_json(std::string(input));
  if (!config || !config->is_object()) {
    return 0;  // the handler answers 400 before applying
  }
  apply(nullptr, *config, force);
  apply(&fuzz::patch_base(), *config, force);
  return 0;
}
