// Byte layouts of what the store keeps in LMDB.
//
// Revision key: 16 bytes, main then sub, both big-endian, so LMDB's byte order is revision
// order. Example: the second write (sub 1) of the txn committed as revision 7 is
//   00 00 00 00 00 00 00 07  00 00 00 00 00 00 00 01
//
// Record (value under a revision key), little-endian fixed fields then the bytes:
//   flags u8 (bit 0: tombstone) | create i64 | version i64 | lease i64 | key_len u32 | key | value
// The record's mod_revision is its revision key's main part.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "store/types.h"

namespace store {

// Names in the "meta" database; each value is encode_i64 of a revision.
inline constexpr const char* kMetaRevision = "revision";    // the current revision
inline constexpr const char* kMetaCompacted = "compacted";  // the compacted revision
inline constexpr const char* kMetaReplaced = "replaced";    // the last replace_all's revision

struct Rev {
  Revision main = 0;
  int64_t sub = 0;
  auto operator<=>(const Rev&) const = default;
};

std::string encode_rev(Rev rev);
std::optional<Rev> decode_rev(std::string_view bytes);

std::string encode_i64(int64_t v);  // big-endian, so encoded values sort numerically
std::optional<int64_t> decode_i64(std::string_view bytes);

struct Record {
  bool tombstone = false;
  KeyValue kv;  // kv.mod_revision is filled from the revision key when decoding
};

// A record read in place: `key` and `value` point into the bytes it was read from.
struct RecordView {
  bool tombstone = false;
  Revision create_revision = 0;
  int64_t version = 0;
  LeaseId lease = 0;
  std::string_view key;
  std::string_view value;
};

std::string encode_record(const KeyValue& kv, bool tombstone);
std::optional<RecordView> view_record(std::string_view bytes);
std::optional<Record> decode_record(std::string_view bytes, Revision mod_revision);
// The value of a live record of `key`, without decoding the rest; false if the bytes are not a
// live record of that key.
bool record_value(std::string_view bytes, std::string_view key, std::string& value);

struct LeaseRecord {
  int64_t ttl = 0;               // granted TTL, seconds
  int64_t deadline_unix_ms = 0;  // wall-clock deadline
};

std::string encode_lease(const LeaseRecord& lease);
std::optional<LeaseRecord> decode_lease(std::string_view bytes);

}  // namespace store
