// MvccStore's reads: ranges at any uncompacted revision (the key index, then LMDB), watches, and
// the history the watch hub replays from.
#include "mvcc_store.h"

namespace store {

Result<RangeResponse> MvccStore::range(const RangeRequest& request) {
  if (request.key.empty()) {
    return Status(Code::EmptyKey);
  }
  std::shared_lock env_lock(env_mu_);
  std::vector<KeyEntry> entries;
  Revision current;
  {
    std::shared_lock index_lock(index_mu_);
    current = current_rev_.load();
    if (request.revision > current) {
      return Status(Code::FutureRevision);
    }
    if (request.revision > 0 && request.revision < compacted_rev_.load()) {
      return Status(Code::Compacted);
    }
    Revision at = request.revision > 0 ? request.revision : current;
    index_.range(request.key, request.range_end, at,
                 [&](const std::string& key, const IndexEntry& e) {
                   entries.push_back({key, e});
                   return true;
                 });
  }
  auto txn = env_->begin_read();
  if (!txn.is_ok()) {
    return txn.status();
  }
  auto response = build_range_response(request, std::move(entries), [&](Rev rev) {
    return txn->get(backend::Db::Rev, encode_rev(rev));
  });
  if (response.is_ok()) {
    response->header.revision = current;
  }
  return response;
}

std::shared_ptr<Watcher> MvccStore::watch(const WatchRequest& request) {
  return hub_->add(request);
}

Status MvccStore::read_history(Revision from, Revision to, size_t max_revisions,
                               std::vector<RevisionEvents>& out, Revision& next) {
  std::shared_lock env_lock(env_mu_);
  auto txn = env_->begin_read();
  if (!txn.is_ok()) {
    return txn.status();
  }
  if (from < compacted_rev_.load()) {
    return Status(Code::Compacted);
  }
  next = to + 1;
  Status corrupt;
  Status s = txn->scan(backend::Db::Rev, encode_rev({from, 0}), encode_rev({to + 1, 0}),
                       [&](std::string_view k, std::string_view v) {
                         auto rev = decode_rev(k);
                         auto record = rev ? decode_record(v, rev->main) : std::nullopt;
                         if (!record) {
                           corrupt = Status(Code::Io, "corrupt record in the store");
                           return false;
                         }
                         if (out.empty() || out.back().revision != rev->main) {
                           if (out.size() == max_revisions) {
                             next = rev->main;
                             return false;
                           }
                           out.push_back({rev->main, {}});
                         }
                         Event event;
                         event.type = record->tombstone ? Event::Type::Delete : Event::Type::Put;
                         event.kv = std::move(record->kv);
                         if (record->tombstone) {
                           event.kv = KeyValue{event.kv.key, 0, rev->main, 0, {}, 0};
                         }
                         std::optional<Rev> previous;
                         {
                           std::shared_lock index_lock(index_mu_);
                           const IndexEntry* e = index_.before(event.kv.key, *rev);
                           if (e != nullptr && !e->tombstone) {
                             previous = e->rev;
                           }
                         }
                         if (previous) {
                           if (auto bytes = txn->get(backend::Db::Rev, encode_rev(*previous))) {
                             if (auto prev = decode_record(*bytes, previous->main)) {
                               event.prev_kv = std::move(prev->kv);
                             }
                           }
                         }
                         out.back().events.push_back(std::move(event));
                         return true;
                       });
  if (!s.is_ok()) {
    return s;
  }
  return corrupt;
}

}  // namespace store
