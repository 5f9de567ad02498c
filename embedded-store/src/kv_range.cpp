#include "kv_range.h"

#include <algorithm>

namespace store {

KeyValue key_value_from_index(const std::string& key, const IndexEntry& entry) {
  KeyValue kv;
  kv.key = key;
  kv.create_revision = entry.create_revision;
  kv.mod_revision = entry.rev.main;
  kv.version = entry.version;
  kv.lease = entry.lease;
  return kv;
}

Result<RangeResponse> build_range_response(const RangeRequest& request,
                                           std::vector<KeyEntry> entries,
                                           const RecordFetcher& fetch) {
  RangeResponse response;
  response.count = static_cast<int64_t>(entries.size());
  if (request.count_only) {
    return response;
  }

  // Filters on revisions use index facts only.
  auto rejected = [&](const KeyEntry& e) {
    return (request.min_mod_revision > 0 && e.entry.rev.main < request.min_mod_revision) ||
           (request.max_mod_revision > 0 && e.entry.rev.main > request.max_mod_revision) ||
           (request.min_create_revision > 0 &&
            e.entry.create_revision < request.min_create_revision) ||
           (request.max_create_revision > 0 &&
            e.entry.create_revision > request.max_create_revision);
  };
  entries.erase(std::remove_if(entries.begin(), entries.end(), rejected), entries.end());

  using Order = RangeRequest::SortOrder;
  using Target = RangeRequest::SortTarget;
  Order order = request.sort_order;
  if (order == Order::None && request.sort_target != Target::Key) {
    order = Order::Ascend;  // as etcd: a target without an order sorts ascending
  }
  bool needs_values_to_sort = order != Order::None && request.sort_target == Target::Value;

  std::vector<KeyValue> kvs;
  // Moves the key out of the entry: each entry is turned into a KeyValue at most once.
  auto fetch_into = [&](KeyEntry& e) -> bool {
    kvs.push_back(key_value_from_index(std::string(), e.entry));
    KeyValue& kv = kvs.back();
    kv.key = std::move(e.key);
    if (request.keys_only) {
      return true;
    }
    auto bytes = fetch(e.entry.rev);
    return bytes && record_value(*bytes, kv.key, kv.value);
  };

  size_t limit = request.limit > 0 ? static_cast<size_t>(request.limit) : entries.size();
  size_t matched = entries.size();
  if (!needs_values_to_sort) {
    if (order != Order::None) {
      auto key_of = [&](const KeyEntry& e) -> int64_t {
        switch (request.sort_target) {
          case Target::Version:
            return e.entry.version;
          case Target::Create:
            return e.entry.create_revision;
          case Target::Mod:
            return e.entry.rev.main;
          default:
            return 0;
        }
      };
      std::stable_sort(entries.begin(), entries.end(), [&](const KeyEntry& a, const KeyEntry& b) {
        if (request.sort_target == Target::Key) {
          return order == Order::Ascend ? a.key < b.key : a.key > b.key;
        }
        return order == Order::Ascend ? key_of(a) < key_of(b) : key_of(a) > key_of(b);
      });
    }
    kvs.reserve(std::min(limit, entries.size()));
    for (size_t i = 0; i < entries.size() && i < limit; ++i) {
      if (!fetch_into(entries[i])) {
        return Status(Code::Compacted);
      }
    }
  } else {
    kvs.reserve(entries.size());
    for (auto& e : entries) {
      KeyValue kv = key_value_from_index(std::string(), e.entry);
      kv.key = std::move(e.key);
      auto bytes = fetch(e.entry.rev);
      if (!bytes || !record_value(*bytes, kv.key, kv.value)) {
        return Status(Code::Compacted);
      }
      kvs.push_back(std::move(kv));
    }
    std::stable_sort(kvs.begin(), kvs.end(), [&](const KeyValue& a, const KeyValue& b) {
      return order == Order::Ascend ? a.value < b.value : a.value > b.value;
    });
    if (kvs.size() > limit) {
      kvs.resize(limit);
    }
    if (request.keys_only) {
      for (auto& kv : kvs) {
        kv.value.clear();
      }
    }
  }
  response.more = matched > kvs.size();
  response.kvs = std::move(kvs);
  return response;
}

}  // namespace store
