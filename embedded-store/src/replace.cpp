#include "replace.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "codec.h"

namespace store {

Status prepare_replace(std::vector<KeyValue>& kvs, const Options& options) {
  for (const auto& kv : kvs) {
    if (kv.key.empty()) {
      return Status(Code::EmptyKey);
    }
    if (kv.key.size() + kv.value.size() > options.max_request_bytes) {
      return Status(Code::RequestTooLarge);
    }
  }
  auto by_key = [](const KeyValue& a, const KeyValue& b) { return a.key < b.key; };
  if (!std::is_sorted(kvs.begin(), kvs.end(), by_key)) {
    std::sort(kvs.begin(), kvs.end(), by_key);
  }
  for (size_t i = 1; i < kvs.size(); ++i) {
    if (kvs[i].key == kvs[i - 1].key) {
      return Status(Code::DuplicateKey, "etcdserver: duplicate key given in replace request");
    }
  }
  return Status::ok();
}

Status apply_replace(backend::Txn& txn, const KeyIndex& index, Revision current,
                     const std::vector<KeyValue>& kvs, const Lessor& lessor, ReplaceOutcome& out) {
  const Revision next = current + 1;
  int64_t sub = 0;
  Status failed;
  auto drop = [&](const IndexEntry& e) {
    if (failed.is_ok()) {
      failed = txn.del(backend::Db::Rev, encode_rev(e.rev));
    }
  };
  auto lease_of = [&](const KeyValue& kv) {
    return kv.lease != 0 && lessor.contains(kv.lease) ? kv.lease : LeaseId{0};
  };
  // `live` is the key's current entry, or nullptr when the key is missing or deleted.
  auto write = [&](const KeyValue& want, const IndexEntry* live) {
    KeyValue kv;
    kv.key = want.key;
    kv.value = want.value;
    kv.lease = lease_of(want);
    kv.create_revision = live != nullptr ? live->create_revision : next;
    kv.version = live != nullptr ? live->version + 1 : 1;
    kv.mod_revision = next;
    Rev rev{next, sub++};
    if (failed.is_ok()) {
      failed = txn.put(backend::Db::Rev, encode_rev(rev), encode_record(kv, false));
    }
    out.index.append(kv.key, IndexEntry{rev, kv.create_revision, kv.version, kv.lease, false});
    LeaseId from = live != nullptr ? live->lease : 0;
    if (from != kv.lease) {
      out.lease_moves.push_back({kv.key, from, kv.lease});
    }
    ++out.response.written;
  };

  // Both sides are in key order: one merge pass.
  auto wanted = kvs.begin();
  index.for_each([&](const std::string& key, const std::vector<IndexEntry>& entries) {
    if (!failed.is_ok()) {
      return;
    }
    while (wanted != kvs.end() && wanted->key < key) {
      write(*wanted++, nullptr);
    }
    const IndexEntry& newest = entries.back();
    const IndexEntry* live = newest.tombstone ? nullptr : &newest;
    if (wanted == kvs.end() || wanted->key != key) {
      for (const auto& e : entries) {
        drop(e);
      }
      if (live != nullptr) {
        ++out.response.deleted;
        if (live->lease != 0) {
          out.lease_moves.push_back({key, live->lease, 0});
        }
      }
      return;
    }
    const KeyValue& want = *wanted++;
    bool same = false;
    if (live != nullptr && live->lease == lease_of(want)) {
      auto bytes = txn.get(backend::Db::Rev, encode_rev(live->rev));
      auto record = bytes ? view_record(*bytes) : std::nullopt;
      same = record && !record->tombstone && record->key == key && record->value == want.value;
    }
    if (same) {
      for (size_t i = 0; i + 1 < entries.size(); ++i) {
        drop(entries[i]);
      }
      out.index.append(key, newest);
      ++out.response.unchanged;
    } else {
      for (const auto& e : entries) {
        drop(e);
      }
      write(want, live);
    }
  });
  while (failed.is_ok() && wanted != kvs.end()) {
    write(*wanted++, nullptr);
  }
  // Deletions write no record (compaction at `next` would drop their tombstones) but are a
  // change all the same: they get the new revision too.
  out.revision = out.response.written + out.response.deleted > 0 ? next : current;
  out.response.header.revision = out.revision;
  out.response.compact_revision = out.revision;
  return failed;
}

Result<SnapshotContents> read_snapshot(const std::filesystem::path& file, bool with_keys) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return Status(Code::InvalidArgument, "no snapshot file " + file.string());
  }
  backend::EnvOptions options;
  options.read_only_file = file;
  options.sync = false;
  auto env = backend::Env::open(options);
  if (!env.is_ok()) {
    return Status(Code::InvalidArgument,
                  file.string() + " is not a store snapshot: " + env.status().message());
  }
  auto txn = env.value()->begin_read();
  if (!txn.is_ok()) {
    return txn.status();
  }
  SnapshotContents out;
  if (auto v = txn->get(backend::Db::Meta, kMetaRevision)) {
    out.revision = decode_i64(*v).value_or(0);
  }
  if (auto v = txn->get(backend::Db::Meta, kMetaCompacted)) {
    out.compact_revision = decode_i64(*v).value_or(0);
  }
  if (auto last = txn->last(backend::Db::Rev)) {
    if (auto rev = decode_rev(last->first)) {
      out.revision = std::max(out.revision, rev->main);
    }
  }
  if (!with_keys) {
    return out;
  }
  // Records come in revision order, so the last one seen of each key is its state. They are
  // read in place (the views stay valid while `txn` is open) and copied once, when live.
  struct Latest {
    Revision mod_revision = 0;
    RecordView record;
  };
  std::unordered_map<std::string_view, Latest> latest;
  latest.reserve(txn->count(backend::Db::Rev));
  Status corrupt;
  Status scanned = txn->scan(backend::Db::Rev, "", "", [&](std::string_view k, std::string_view v) {
    auto rev = decode_rev(k);
    auto record = rev ? view_record(v) : std::nullopt;
    if (!record) {
      corrupt = Status(Code::InvalidArgument, "corrupt record in snapshot " + file.string());
      return false;
    }
    latest.insert_or_assign(record->key, Latest{rev->main, *record});
    return true;
  });
  if (!scanned.is_ok()) {
    return scanned;
  }
  if (!corrupt.is_ok()) {
    return corrupt;
  }
  std::vector<const Latest*> live;
  live.reserve(latest.size());
  for (const auto& [key, entry] : latest) {
    if (!entry.record.tombstone) {
      live.push_back(&entry);
    }
  }
  std::sort(live.begin(), live.end(),
            [](const Latest* a, const Latest* b) { return a->record.key < b->record.key; });
  out.kvs.reserve(live.size());
  for (const Latest* entry : live) {
    KeyValue& kv = out.kvs.emplace_back();
    kv.key.assign(entry->record.key);
    kv.create_revision = entry->record.create_revision;
    kv.mod_revision = entry->mod_revision;
    kv.version = entry->record.version;
    kv.value.assign(entry->record.value);
    kv.lease = entry->record.lease;
  }
  return out;
}

}  // namespace store
