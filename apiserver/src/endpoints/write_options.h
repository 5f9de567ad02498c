// What a write request asks of the store besides its body: dryRun, and the field manager whose
// ownership (managedFields) the write records.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "common/clock.h"
#include "endpoints/patch/field_manager.h"
#include "endpoints/resources.h"
#include "errors/result.h"
#include "registry/generic/store.h"

namespace apiserver::endpoints {

// The field manager of a write: ?fieldManager, else the User-Agent's product name, as upstream.
std::string field_manager(const http::Request& request);
// The schema that field ownership and server-side apply walk: the built-in kind's, or a custom
// resource's from its CRD; nullopt when there is none.
std::optional<patch::ObjectType> object_type_of(const registry::Resource& r);
// The managedFields writer of this request (`now`: the entry's time).
patch::Writer writer_of(const registry::Resource& r, const RequestInfo& info,
                        const http::Request& request, std::chrono::system_clock::time_point now);
// What a create or update through this request asks besides its body: dryRun (nothing but "All"
// is accepted; a bad value is the 422 for `options_kind`, "CreateOptions" and the like) and the
// field ownership the write records. `owned`: the caller recorded ownership itself (server-side
// apply), so there is none to record and no fieldManager to check; `check_manager`: the
// fieldManager parameter is checked here (a patch checked it already).
struct WriteOptions {
  bool dry_run = false;
  registry::Ownership own;
};
errors::Result<WriteOptions> write_options(const registry::Resource& r, const RequestInfo& info,
                                           const http::Request& request,
                                           const std::string& options_kind, bool owned,
                                           bool check_manager, const common::Clock& clock);

}  // namespace apiserver::endpoints
