// Store::replace_all as the commit loop runs it: the wanted contents turned into one LMDB write
// transaction against the current key index, fused with a compaction at the new revision, and
// the reading of snapshot files that feeds it.
//
// Example: the index holds a@2 a@5 (value "x"), b@3, c@4 tombstone@6, and the wanted contents
// are {a: "x", d: "y"} at current revision 6. Then a is unchanged (its old record @2 goes, @5
// stays), b is deleted (record @3 goes, no tombstone is written: compaction at 7 would drop it),
// c's records @4 and @6 go, d is written at 7.0. The new index is a -> [@5], d -> [@7.0]; the
// revision becomes 7 and so does the compacted revision. Had the contents been {a: "x"}, nothing
// would be written at 7, yet the revision would still become 7: b's deletion is a change.
#pragma once

#include <string>
#include <vector>

#include "backend/lmdb_env.h"
#include "key_index.h"
#include "lessor.h"
#include "store/store.h"

namespace store {

// Checks `kvs` for replace_all (EmptyKey, RequestTooLarge, DuplicateKey) and sorts it by key.
Status prepare_replace(std::vector<KeyValue>& kvs, const Options& options);

struct ReplaceOutcome {
  KeyIndex index;         // the whole index afterwards: one entry per live key
  Revision revision = 0;  // the store revision afterwards (unchanged when nothing was written)
  ReplaceResponse response;
  struct LeaseMove {
    std::string key;
    LeaseId from = 0;
    LeaseId to = 0;
  };
  std::vector<LeaseMove> lease_moves;  // for the Lessor, once the transaction is durable
};

// Writes, inside `txn`, the records of the keys that change (at revision current + 1) and
// deletes every record the new index does not keep. `kvs` went through prepare_replace; `index`
// is the committed index, which only the caller's thread changes. A failure (Io, or LMDB's map
// full) leaves `out` meaningless: the caller aborts the transaction.
Status apply_replace(backend::Txn& txn, const KeyIndex& index, Revision current,
                     const std::vector<KeyValue>& kvs, const Lessor& lessor, ReplaceOutcome& out);

}  // namespace store
