// What TableView shows: the filter (a name substring or a label selector) and its verdict per
// row, the visible rows in sort order, and the selection, found again by identity.
#include "console/model/table_view.h"

#include <algorithm>

#include "model/table_cells.h"

namespace console::model {

namespace {

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

void TableView::set_filter(std::string_view text) {
  filter_text_ = std::string(text);
  selector_.reset();
  lower_filter_.clear();
  mode_ = FilterMode::None;
  const std::string_view trimmed = trim(text);
  if (!trimmed.empty()) {
    auto selector = LabelSelector::parse(trimmed);
    if (selector.ok() && selector->has_operator()) {
      mode_ = FilterMode::Labels;
      selector_ = std::move(*selector);
    } else {
      mode_ = FilterMode::Name;
      lower_filter_ = lowercase(trimmed);
    }
  }
  rebuild_filter();
  rebuild_visible();
}

bool TableView::passes_filter(size_t index) const {
  if (mode_ == FilterMode::Name) {
    return lower_names_[index].find(lower_filter_) != std::string::npos;
  }
  if (mode_ == FilterMode::Labels) {
    return selector_->matches(rows_[index].labels);
  }
  return true;
}

void TableView::rebuild_filter() {
  passes_.assign(rows_.size(), 1);
  for (const uint32_t r : load_order_) {
    passes_[r] = passes_filter(r);
  }
}

void TableView::rebuild_visible() {
  visible_.clear();
  selected_position_.reset();
  for (const uint32_t r : order_) {
    if (!passes_[r]) {
      continue;
    }
    if (selected_row_ == r) {
      selected_position_ = visible_.size();
    }
    visible_.push_back(r);
  }
}

bool TableView::select(std::string_view namespace_, std::string_view name) {
  const std::optional<uint32_t> found = find_row(namespace_, name);
  if (!found) {
    return false;
  }
  selected_row_ = *found;
  locate_selection();
  return true;
}

void TableView::locate_selection() {
  selected_position_.reset();
  if (!selected_row_ || !passes_[*selected_row_]) {
    return;
  }
  const auto index = static_cast<uint32_t>(*selected_row_);
  const size_t at = key_ordered_
                        ? locate(visible_, index)
                        : static_cast<size_t>(std::find(visible_.begin(), visible_.end(), index) -
                                              visible_.begin());
  if (at < visible_.size()) {
    selected_position_ = at;
  }
}

std::optional<uint32_t> TableView::find_row(std::string_view namespace_,
                                            std::string_view name) const {
  const ObjectKeyLess::View wanted{namespace_, name};
  auto key = [&](uint32_t r) { return ObjectKeyLess::View{rows_[r].namespace_, rows_[r].name}; };
  if (key_ordered_) {
    const auto it =
        std::lower_bound(load_order_.begin(), load_order_.end(), wanted,
                         [&](uint32_t r, const ObjectKeyLess::View& k) { return key(r) < k; });
    if (it != load_order_.end() && key(*it) == wanted) {
      return *it;
    }
    return std::nullopt;
  }
  const auto it = std::find_if(load_order_.begin(), load_order_.end(),
                               [&](uint32_t r) { return key(r) == wanted; });
  return it != load_order_.end() ? std::optional<uint32_t>(*it) : std::nullopt;
}

void TableView::clear_selection() {
  selected_row_.reset();
  selected_position_.reset();
}

const TableRow* TableView::selected() const {
  return selected_row_ ? &rows_[*selected_row_] : nullptr;
}

}  // namespace console::model
