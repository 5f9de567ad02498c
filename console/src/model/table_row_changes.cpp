// TableView's rows changed in place by watch events: upsert_row() and erase_row() recompute one
// row's keys and verdict and move it within the sorted and the visible order by binary search.
#include "console/model/table_view.h"

#include <algorithm>
#include <cmath>

#include "model/table_cells.h"

namespace console::model {

void TableView::index_row(size_t index, double created, double now_s) {
  const TableRow& row = rows_[index];
  for (size_t c = 0; c < columns_.size(); ++c) {
    SortKeys& keys = keys_[c];
    const std::string& cell = row.cells[c];
    if (columns_[c].kind == ColumnKind::Text) {
      std::string key;
      append_natural_key(cell, key);
      if (keys.text_key(index) != key) {
        keys.set_text(index, cell);
        rankings_[c].valid = false;
      }
      continue;
    }
    double key = kNoKey;
    if (columns_[c].kind == ColumnKind::Number) {
      key = number_key_text(cell);
    } else {
      const bool exact = is_age_column(columns_[c].name) && !std::isnan(created);
      key = exact ? created : time_key_text(cell, now_s);
    }
    const double old = keys.numbers[index];
    if (!(old == key || (std::isnan(old) && std::isnan(key)))) {
      keys.numbers[index] = key;
      rankings_[c].valid = false;
    }
  }
  lower_names_[index] = lowercase(row.name);
  passes_[index] = passes_filter(index);
}

bool TableView::upsert_row(TableRow row, double created, int64_t now_ms) {
  if (!key_ordered_) {
    return false;
  }
  const size_t first = namespace_column_ ? 1 : 0;
  row.cells.resize(columns_.size() - first);
  if (namespace_column_) {
    row.cells.insert(row.cells.begin(), row.namespace_);
  }
  const double now_s = static_cast<double>(now_ms) / 1000.0;
  if (const std::optional<uint32_t> found = find_row(row.namespace_, row.name)) {
    // Where it is, found with its old keys; it moves only when its new keys put it elsewhere.
    const uint32_t index = *found;
    const size_t at = locate(order_, index);
    const bool passed = passes_[index] != 0;
    const size_t shown_at = passed ? locate(visible_, index) : 0;
    rows_[index] = std::move(row);
    index_row(index, created, now_s);
    if (!in_place(order_, at)) {
      order_.erase(order_.begin() + static_cast<std::ptrdiff_t>(at));
      insert_ordered(order_, index);
    }
    const bool passes = passes_[index] != 0;
    if (!(passed && passes && in_place(visible_, shown_at))) {
      if (passed) {
        visible_.erase(visible_.begin() + static_cast<std::ptrdiff_t>(shown_at));
      }
      if (passes) {
        insert_ordered(visible_, index);
      }
    }
    locate_selection();
    return true;
  }
  uint32_t index = 0;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    index = static_cast<uint32_t>(rows_.size());
    rows_.emplace_back();
    lower_names_.emplace_back();
    passes_.push_back(0);
    for (size_t c = 0; c < columns_.size(); ++c) {
      SortKeys& keys = keys_[c];
      if (columns_[c].kind == ColumnKind::Text) {
        keys.text_starts.push_back(static_cast<uint32_t>(keys.text.size()));
        keys.text_lengths.push_back(0);
      } else {
        keys.numbers.push_back(kNoKey);
      }
    }
  }
  rows_[index] = std::move(row);
  index_row(index, created, now_s);
  for (Ranking& ranking : rankings_) {
    ranking.valid = false;  // a new key may fall between two ranks
  }
  load_order_.insert(std::lower_bound(load_order_.begin(), load_order_.end(), index,
                                      [&](uint32_t a, uint32_t b) { return key_less(a, b); }),
                     index);
  insert_ordered(order_, index);
  if (passes_[index] != 0) {
    insert_ordered(visible_, index);
  }
  locate_selection();
  return true;
}

bool TableView::erase_row(std::string_view namespace_, std::string_view name) {
  if (!key_ordered_) {
    return false;
  }
  const std::optional<uint32_t> found = find_row(namespace_, name);
  if (!found) {
    return false;
  }
  const uint32_t index = *found;
  order_.erase(order_.begin() + static_cast<std::ptrdiff_t>(locate(order_, index)));
  if (passes_[index] != 0) {
    visible_.erase(visible_.begin() + static_cast<std::ptrdiff_t>(locate(visible_, index)));
  }
  load_order_.erase(std::lower_bound(load_order_.begin(), load_order_.end(), index,
                                     [&](uint32_t a, uint32_t b) { return key_less(a, b); }));
  if (selected_row_ == index) {
    selected_row_.reset();
  }
  // The index is free; its old keys stay out of every ranking's use (it is in no order).
  rows_[index] = TableRow{};
  lower_names_[index].clear();
  passes_[index] = 0;
  for (size_t c = 0; c < columns_.size(); ++c) {
    SortKeys& keys = keys_[c];
    if (columns_[c].kind == ColumnKind::Text) {
      keys.unused_text += keys.text_lengths[index];
      keys.text_lengths[index] = 0;
    } else {
      keys.numbers[index] = kNoKey;
    }
  }
  free_.push_back(index);
  locate_selection();
  return true;
}

}  // namespace console::model
