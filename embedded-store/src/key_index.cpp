#include "key_index.h"

#include <algorithm>

namespace store {

KeyBounds key_bounds(const std::string& key, const std::string& range_end) {
  KeyBounds b;
  if (range_end.empty()) {
    b.begin = key;
    b.single = true;
    return b;
  }
  const std::string zero(1, '\0');
  b.begin = (key == zero && range_end == zero) ? std::string() : key;
  if (range_end == zero) {
    b.end_is_infinite = true;
  } else {
    b.end = range_end;
  }
  return b;
}

bool KeyBounds::contains(const std::string& k) const {
  if (single) {
    return k == begin;
  }
  return k >= begin && (end_is_infinite || k < end);
}

namespace {

// The index of the latest entry with rev.main <= at, or -1.
int latest_at(const std::vector<IndexEntry>& entries, Revision at) {
  auto it = std::upper_bound(entries.begin(), entries.end(), at,
                             [](Revision r, const IndexEntry& e) { return r < e.rev.main; });
  return static_cast<int>(it - entries.begin()) - 1;
}

}  // namespace

const IndexEntry* KeyIndex::live_at(const std::string& key, Revision at) const {
  auto it = keys_.find(key);
  if (it == keys_.end()) {
    return nullptr;
  }
  int i = latest_at(it->second, at);
  if (i < 0 || it->second[i].tombstone) {
    return nullptr;
  }
  return &it->second[i];
}

const IndexEntry* KeyIndex::newest(const std::string& key) const {
  auto it = keys_.find(key);
  if (it == keys_.end() || it->second.empty()) {
    return nullptr;
  }
  return &it->second.back();
}

const IndexEntry* KeyIndex::before(const std::string& key, Rev rev) const {
  auto it = keys_.find(key);
  if (it == keys_.end()) {
    return nullptr;
  }
  const IndexEntry* found = nullptr;
  for (const auto& e : it->second) {
    if (!(e.rev < rev)) {
      break;
    }
    found = &e;
  }
  return found;
}

void KeyIndex::range(const std::string& key, const std::string& range_end, Revision at,
                     const IndexVisitor& visit) const {
  KeyBounds b = key_bounds(key, range_end);
  if (b.single) {
    if (const IndexEntry* e = live_at(key, at)) {
      visit(key, *e);
    }
    return;
  }
  for (auto it = keys_.lower_bound(b.begin); it != keys_.end(); ++it) {
    if (!b.end_is_infinite && it->first >= b.end) {
      break;
    }
    int i = latest_at(it->second, at);
    if (i < 0 || it->second[i].tombstone) {
      continue;
    }
    if (!visit(it->first, it->second[i])) {
      return;
    }
  }
}

void KeyIndex::newest_in(
    const std::string& key, const std::string& range_end,
    const std::function<void(const std::string&, const IndexEntry&)>& visit) const {
  KeyBounds b = key_bounds(key, range_end);
  if (b.single) {
    if (const IndexEntry* e = newest(key)) {
      visit(key, *e);
    }
    return;
  }
  for (auto it = keys_.lower_bound(b.begin); it != keys_.end(); ++it) {
    if (!b.end_is_infinite && it->first >= b.end) {
      break;
    }
    if (!it->second.empty()) {
      visit(it->first, it->second.back());
    }
  }
}

void KeyIndex::append(const std::string& key, const IndexEntry& entry) {
  auto& entries = keys_[key];
  bool was_live = !entries.empty() && !entries.back().tombstone;
  STORE_CHECK(entries.empty() || entries.back().rev < entry.rev, "index entries out of order");
  entries.push_back(entry);
  bool is_live = !entry.tombstone;
  if (is_live && !was_live) {
    ++live_keys_;
  } else if (!is_live && was_live) {
    --live_keys_;
  }
}

void KeyIndex::merge(const KeyIndex& other) {
  for (const auto& [key, entries] : other.keys_) {
    for (const auto& e : entries) {
      append(key, e);
    }
  }
}

std::vector<Rev> KeyIndex::compaction_plan(Revision at) const {
  std::vector<Rev> drop;
  for (const auto& [key, entries] : keys_) {
    int i = latest_at(entries, at);
    if (i < 0) {
      continue;
    }
    for (int j = 0; j < i; ++j) {
      drop.push_back(entries[j].rev);
    }
    if (entries[i].tombstone) {
      drop.push_back(entries[i].rev);
    }
  }
  std::sort(drop.begin(), drop.end());
  return drop;
}

void KeyIndex::compact(Revision at) {
  for (auto it = keys_.begin(); it != keys_.end();) {
    auto& entries = it->second;
    int i = latest_at(entries, at);
    if (i >= 0) {
      int keep_from = entries[i].tombstone ? i + 1 : i;
      entries.erase(entries.begin(), entries.begin() + keep_from);
    }
    it = entries.empty() ? keys_.erase(it) : std::next(it);
  }
}

size_t KeyIndex::entries() const {
  size_t n = 0;
  for (const auto& [key, entries] : keys_) {
    n += entries.size();
  }
  return n;
}

void KeyIndex::for_each(
    const std::function<void(const std::string&, const std::vector<IndexEntry>&)>& fn) const {
  for (const auto& [key, entries] : keys_) {
    fn(key, entries);
  }
}

}  // namespace store
