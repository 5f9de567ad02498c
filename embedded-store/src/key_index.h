// The in-memory key index: for every key, the revisions at which it was written, oldest first.
// It answers "which revision of this key was live at revision R" without touching LMDB; the
// values themselves stay in LMDB under their revision. Rebuilt from the database at open.
//
// Example: put a@2, put a@3, delete a@4, put a@6 gives
//   "a" -> [ {2, create 2, v1}, {3, create 2, v2}, {4, tombstone}, {6, create 6, v1} ]
// a@5 is absent (the latest entry <= 5 is a tombstone); a@3 is version 2. Compacting at 5 keeps
// only {6}: entries below the latest one <= 5 go, and so does that one when it is a tombstone.
//
// Not thread-safe: the store guards it with its index mutex.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "codec.h"
#include "store/status.h"

namespace store {

struct IndexEntry {
  Rev rev;
  Revision create_revision = 0;
  int64_t version = 0;
  LeaseId lease = 0;
  bool tombstone = false;
};

// Visits keys in order; return false to stop. `entry` is the key's latest entry <= the revision
// asked for, never a tombstone.
using IndexVisitor = std::function<bool(const std::string& key, const IndexEntry& entry)>;

class KeyIndex {
 public:
  // The key's latest entry at or below `at` that is not a tombstone, or nullptr.
  const IndexEntry* live_at(const std::string& key, Revision at) const;
  // The key's newest entry (possibly a tombstone), or nullptr.
  const IndexEntry* newest(const std::string& key) const;
  // The entry just before `rev` for this key (possibly a tombstone), or nullptr.
  const IndexEntry* before(const std::string& key, Rev rev) const;

  // Visits the live keys at `at` within [key, range_end) under etcd's range conventions.
  void range(const std::string& key, const std::string& range_end, Revision at,
             const IndexVisitor& visit) const;

  // Visits the newest entry (tombstones included) of every key within [key, range_end).
  void newest_in(const std::string& key, const std::string& range_end,
                 const std::function<void(const std::string&, const IndexEntry&)>& visit) const;

  // Appends an entry; entries of a key must arrive in revision order.
  void append(const std::string& key, const IndexEntry& entry);
  // Appends every entry of `other` (a batch's index) to this one.
  void merge(const KeyIndex& other);

  // Revisions that compacting at `at` drops from the database, without changing the index.
  std::vector<Rev> compaction_plan(Revision at) const;
  // Drops the entries that compaction_plan(at) names.
  void compact(Revision at);

  // Keys whose newest entry is not a tombstone.
  size_t live_keys() const { return live_keys_; }
  size_t entries() const;
  bool empty() const { return keys_.empty(); }

  // Calls fn for every (key, entries) pair, in key order.
  void for_each(const std::function<void(const std::string&, const std::vector<IndexEntry>&)>&
                    fn) const;

 private:
  std::map<std::string, std::vector<IndexEntry>, std::less<>> keys_;
  size_t live_keys_ = 0;
};

// etcd's range conventions resolved to [begin, end) bounds: `end_is_infinite` for "\0" ends,
// `single` when only `key` itself is meant.
struct KeyBounds {
  std::string begin;
  std::string end;
  bool single = false;
  bool end_is_infinite = false;
  bool contains(const std::string& k) const;
};
KeyBounds key_bounds(const std::string& key, const std::string& range_end);

}  // namespace store
