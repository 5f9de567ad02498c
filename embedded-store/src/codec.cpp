#include "codec.h"

#include <cstring>

namespace store {
namespace {

void put_be64(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((v >> shift) & 0xff));
  }
}

uint64_t get_be64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v = (v << 8) | static_cast<unsigned char>(p[i]);
  }
  return v;
}

template <typename T>
void put_le(std::string& out, T v) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  out.append(buf, sizeof(T));
}

template <typename T>
bool get_le(std::string_view& in, T& v) {
  if (in.size() < sizeof(T)) {
    return false;
  }
  std::memcpy(&v, in.data(), sizeof(T));
  in.remove_prefix(sizeof(T));
  return true;
}

}  // namespace

std::string encode_rev(Rev rev) {
  std::string out;
  out.reserve(16);
  put_be64(out, static_cast<uint64_t>(rev.main));
  put_be64(out, static_cast<uint64_t>(rev.sub));
  return out;
}

std::optional<Rev> decode_rev(std::string_view bytes) {
  if (bytes.size() != 16) {
    return std::nullopt;
  }
  return Rev{static_cast<Revision>(get_be64(bytes.data())),
             static_cast<int64_t>(get_be64(bytes.data() + 8))};
}

std::string encode_i64(int64_t v) {
  std::string out;
  put_be64(out, static_cast<uint64_t>(v));
  return out;
}

std::optional<int64_t> decode_i64(std::string_view bytes) {
  if (bytes.size() != 8) {
    return std::nullopt;
  }
  return static_cast<int64_t>(get_be64(bytes.data()));
}

std::string encode_record(const KeyValue& kv, bool tombstone) {
  std::string out;
  out.reserve(1 + 8 * 3 + 4 + kv.key.size() + kv.value.size());
  out.push_back(tombstone ? 1 : 0);
  put_le<int64_t>(out, kv.create_revision);
  put_le<int64_t>(out, kv.version);
  put_le<int64_t>(out, kv.lease);
  put_le<uint32_t>(out, static_cast<uint32_t>(kv.key.size()));
  out.append(kv.key);
  out.append(kv.value);
  return out;
}

std::optional<RecordView> view_record(std::string_view bytes) {
  RecordView r;
  if (bytes.empty() || (bytes[0] & ~1) != 0) {
    return std::nullopt;
  }
  r.tombstone = bytes[0] == 1;
  bytes.remove_prefix(1);
  uint32_t key_len = 0;
  if (!get_le(bytes, r.create_revision) || !get_le(bytes, r.version) || !get_le(bytes, r.lease) ||
      !get_le(bytes, key_len) || bytes.size() < key_len) {
    return std::nullopt;
  }
  r.key = bytes.substr(0, key_len);
  r.value = bytes.substr(key_len);
  return r;
}

std::optional<Record> decode_record(std::string_view bytes, Revision mod_revision) {
  auto view = view_record(bytes);
  if (!view) {
    return std::nullopt;
  }
  Record r;
  r.tombstone = view->tombstone;
  r.kv.key.assign(view->key);
  r.kv.create_revision = view->create_revision;
  r.kv.mod_revision = mod_revision;
  r.kv.version = view->version;
  r.kv.value.assign(view->value);
  r.kv.lease = view->lease;
  return r;
}

bool record_value(std::string_view bytes, std::string_view key, std::string& value) {
  constexpr size_t kFixed = 1 + 8 * 3;
  if (bytes.size() < kFixed + 4 || bytes[0] != 0) {
    return false;
  }
  bytes.remove_prefix(kFixed);
  uint32_t key_len = 0;
  if (!get_le(bytes, key_len) || bytes.size() < key_len || bytes.substr(0, key_len) != key) {
    return false;
  }
  bytes.remove_prefix(key_len);
  value.assign(bytes.data(), bytes.size());
  return true;
}

std::string encode_lease(const LeaseRecord& lease) {
  std::string out;
  put_le<int64_t>(out, lease.ttl);
  put_le<int64_t>(out, lease.deadline_unix_ms);
  return out;
}

std::optional<LeaseRecord> decode_lease(std::string_view bytes) {
  LeaseRecord r;
  if (!get_le(bytes, r.ttl) || !get_le(bytes, r.deadline_unix_ms) || !bytes.empty()) {
    return std::nullopt;
  }
  return r;
}

}  // namespace store
