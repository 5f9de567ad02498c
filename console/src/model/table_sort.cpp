// TableView's sort order: whole sorts rank a column's rows once from their keys and then order
// packed (rank, load index) keys; before() is the same order for one row at a time, which the
// in-place row changes and the selection search with.
#include "console/model/table_view.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace console::model {

namespace {

constexpr uint32_t kMissing = std::numeric_limits<uint32_t>::max();

// Ranks from (key, row) pairs sorted by key; `same` tells whether neighbours tie.
template <class Sorted, class Same>
uint32_t assign_ranks(const Sorted& sorted, Same same, std::vector<uint32_t>& rank) {
  uint32_t next = 0;
  for (size_t k = 0; k < sorted.size(); ++k) {
    if (k > 0 && !same(sorted[k - 1], sorted[k])) {
      ++next;
    }
    rank[sorted[k].row] = next;
  }
  return sorted.empty() ? 0 : next + 1;
}

// Numbers and times: NaN (no key) keeps kMissing.
uint32_t rank_numbers(const std::vector<double>& keys, std::vector<uint32_t>& rank) {
  struct Keyed {
    double key;
    uint32_t row;
  };
  std::vector<Keyed> sorted;
  sorted.reserve(keys.size());
  for (uint32_t r = 0; r < keys.size(); ++r) {
    if (!std::isnan(keys[r])) {
      sorted.push_back({keys[r], r});
    }
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
  return assign_ranks(
      sorted, [](const Keyed& a, const Keyed& b) { return a.key == b.key; }, rank);
}

// Text: entries carry 16 bytes of their key (after the bytes all keys share) so that most
// comparisons never read the key buffer, and none do when a key ends within those bytes.
uint32_t rank_texts(const std::string& text, const std::vector<uint32_t>& starts,
                    const std::vector<uint32_t>& lengths, const std::vector<uint32_t>& rows,
                    std::vector<uint32_t>& rank) {
  constexpr size_t kHeadBytes = 16;
  struct Keyed {
    uint64_t head[2];
    uint32_t offset;
    uint32_t length;  // after the common bytes
    uint32_t row;
  };
  std::vector<Keyed> sorted(rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    const uint32_t r = rows[k];
    sorted[k] = {{0, 0}, starts[r], lengths[r], r};
  }
  auto key = [&](const Keyed& k) { return std::string_view(text).substr(k.offset, k.length); };
  size_t common = sorted.empty() ? 0 : sorted[0].length;
  for (const Keyed& k : sorted) {
    const std::string_view first = key(sorted[0]);
    const std::string_view other = key(k);
    const size_t limit = std::min({common, first.size(), other.size()});
    size_t same = 0;
    while (same < limit && first[same] == other[same]) {
      ++same;
    }
    common = same;
  }
  for (Keyed& k : sorted) {
    k.offset += static_cast<uint32_t>(common);
    k.length -= static_cast<uint32_t>(common);
    const std::string_view rest = key(k);
    for (size_t b = 0; b < kHeadBytes; ++b) {
      const uint64_t byte = b < rest.size() ? static_cast<unsigned char>(rest[b]) : 0u;
      k.head[b / 8] = k.head[b / 8] << 8 | byte;
    }
  }
  // -1, 0, 1. Equal heads leave only the bytes past the head to compare, unless a key ends inside
  // the head: then it is a prefix of the other (the padding matched the other's bytes).
  auto compare = [&](const Keyed& a, const Keyed& b) {
    if (a.head[0] != b.head[0]) {
      return a.head[0] < b.head[0] ? -1 : 1;
    }
    if (a.head[1] != b.head[1]) {
      return a.head[1] < b.head[1] ? -1 : 1;
    }
    if (a.length <= kHeadBytes || b.length <= kHeadBytes) {
      return a.length == b.length ? 0 : (a.length < b.length ? -1 : 1);
    }
    const int c = key(a).compare(key(b));
    return c == 0 ? 0 : (c < 0 ? -1 : 1);
  };
  std::sort(sorted.begin(), sorted.end(),
            [&](const Keyed& a, const Keyed& b) { return compare(a, b) < 0; });
  return assign_ranks(
      sorted, [&](const Keyed& a, const Keyed& b) { return compare(a, b) == 0; }, rank);
}

}  // namespace

const TableView::Ranking& TableView::ranking(size_t column) {
  Ranking& ranking = rankings_[column];
  if (ranking.valid) {
    return ranking;
  }
  ranking.rank.assign(rows_.size(), kMissing);
  const SortKeys& keys = keys_[column];
  ranking.distinct =
      columns_[column].kind == ColumnKind::Text
          ? rank_texts(keys.text, keys.text_starts, keys.text_lengths, load_order_, ranking.rank)
          : rank_numbers(keys.numbers, ranking.rank);
  ranking.valid = true;
  return ranking;
}

void TableView::sort_by(size_t column, SortDirection direction) {
  if (column >= columns_.size()) {
    return;
  }
  sort_column_ = column;
  direction_ = direction;
  rebuild_order();
}

void TableView::clear_sort() {
  sort_column_.reset();
  rebuild_order();
}

void TableView::rebuild_order() {
  if (!sort_column_) {
    order_ = load_order_;
    rebuild_visible();
    return;
  }
  const Ranking& ranking = this->ranking(*sort_column_);
  const bool descending = direction_ == SortDirection::Descending;
  // (rank, position in load order): equal keys keep load order.
  std::vector<uint64_t> packed(load_order_.size());
  for (uint32_t k = 0; k < load_order_.size(); ++k) {
    uint64_t rank = ranking.rank[load_order_[k]];
    if (descending && rank != kMissing) {
      rank = ranking.distinct - 1 - rank;
    }
    packed[k] = rank << 32 | k;
  }
  std::sort(packed.begin(), packed.end());
  order_.resize(packed.size());
  for (size_t k = 0; k < packed.size(); ++k) {
    order_[k] = load_order_[static_cast<uint32_t>(packed[k])];
  }
  rebuild_visible();
}

bool TableView::key_less(uint32_t a, uint32_t b) const {
  return ObjectKeyLess::View{rows_[a].namespace_, rows_[a].name} <
         ObjectKeyLess::View{rows_[b].namespace_, rows_[b].name};
}

bool TableView::before(uint32_t a, uint32_t b) const {
  if (sort_column_) {
    const SortKeys& keys = keys_[*sort_column_];
    int order = 0;
    if (columns_[*sort_column_].kind == ColumnKind::Text) {
      const int c = keys.text_key(a).compare(keys.text_key(b));
      order = c < 0 ? -1 : (c > 0 ? 1 : 0);
    } else {
      const double x = keys.numbers[a];
      const double y = keys.numbers[b];
      if (std::isnan(x) != std::isnan(y)) {
        return std::isnan(y);  // no number or time: last in both directions
      }
      if (!std::isnan(x) && x != y) {
        order = x < y ? -1 : 1;
      }
    }
    if (order != 0) {
      return direction_ == SortDirection::Descending ? order > 0 : order < 0;
    }
  }
  return key_less(a, b);
}

size_t TableView::locate(const std::vector<uint32_t>& in, uint32_t index) const {
  const auto it = std::lower_bound(in.begin(), in.end(), index,
                                   [&](uint32_t a, uint32_t b) { return before(a, b); });
  if (it != in.end() && *it == index) {
    return static_cast<size_t>(it - in.begin());
  }
  return static_cast<size_t>(std::find(in.begin(), in.end(), index) - in.begin());
}

bool TableView::in_place(const std::vector<uint32_t>& in, size_t at) const {
  return (at == 0 || before(in[at - 1], in[at])) &&
         (at + 1 == in.size() || before(in[at], in[at + 1]));
}

void TableView::insert_ordered(std::vector<uint32_t>& in, uint32_t index) const {
  const auto it = std::lower_bound(in.begin(), in.end(), index,
                                   [&](uint32_t a, uint32_t b) { return before(a, b); });
  in.insert(it, index);
}

}  // namespace console::model
