// What the patch targets patch: a Deployment as the server stores it (defaulted, owned by a
// kubectl create and a server-side apply through managedFields), and the ownership step every
// patch ends with, as the PATCH handler runs them (endpoints/patch/*.h).
#pragma once

#include <nlohmann/json.hpp>

#include "endpoints/patch/field_manager.h"

namespace fuzz {

// apps/v1 Deployment "web" in namespace "default".
const nlohmann::json& patch_base();
const apiserver::endpoints::patch::ObjectType& deployment_type();
// The writer of a PATCH by field manager "fuzz" on the main resource.
apiserver::endpoints::patch::Writer patch_writer();
// managedFields brought up to date for `patched`, as after a JSON, merge or strategic merge
// patch (a no-op when the result is not an object).
void record_update(const nlohmann::json& patched);

}  // namespace fuzz
