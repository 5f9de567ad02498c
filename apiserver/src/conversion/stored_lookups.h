// How webhook resolution (webhook/resolve.h) reads Services, Endpoints and EndpointSlices when
// there is no request to read them through: straight from storage, through the registry's rows.
#pragma once

#include <memory>

#include "apiserver/registry.h"
#include "storage/storage.h"
#include "webhook/resolve.h"

namespace apiserver::conversion {

// `registry` and `storage` must outlive the lookups.
webhook::Lookups stored_lookups(const std::shared_ptr<registry::Registry>& registry,
                                storage::Storage& storage);

}  // namespace apiserver::conversion
