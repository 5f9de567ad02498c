// Turning the index entries of a range into a RangeResponse: filters, sort, limit, and fetching
// the values from the database. Shared by plain reads and by reads inside a txn.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codec.h"
#include "key_index.h"
#include "store/status.h"
#include "store/types.h"

namespace store {

struct KeyEntry {
  std::string key;
  IndexEntry entry;
};

// The raw record written at a revision; nullopt if it is gone (compacted meanwhile). The view
// stays valid until the caller's transaction ends.
using RecordFetcher = std::function<std::optional<std::string_view>(Rev)>;

// `entries` are the range's live keys in key order.
Result<RangeResponse> build_range_response(const RangeRequest& request,
                                           std::vector<KeyEntry> entries,
                                           const RecordFetcher& fetch);

// A KeyValue from index facts alone (no value).
KeyValue key_value_from_index(const std::string& key, const IndexEntry& entry);

}  // namespace store
