#include "console/model/table_view.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "common/rfc3339.h"
#include "model/json_fields.h"

namespace console::model {

namespace {

constexpr uint32_t kMissing = std::numeric_limits<uint32_t>::max();
constexpr double kNoKey = std::numeric_limits<double>::quiet_NaN();

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), lower);
  return out;
}

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

// Appends the natural sort key of `s`: bytes whose plain byte order is the natural order.
// Letters are lowercased. A digit run becomes '0' (so it sorts where a digit would against other
// characters), its length without leading zeros (two bytes, big-endian) and those digits, so runs
// compare by value. Then a NUL and `s` itself settle ties between texts equal so far ("a01" and
// "a1", "A" and "a"), so that only equal texts get equal keys.
void append_natural_key(std::string_view s, std::string& out) {
  size_t i = 0;
  while (i < s.size()) {
    if (!is_digit(s[i])) {
      out += lower(s[i++]);
      continue;
    }
    while (i < s.size() && s[i] == '0') {
      ++i;
    }
    const size_t start = i;
    while (i < s.size() && is_digit(s[i])) {
      ++i;
    }
    const size_t length = std::min<size_t>(i - start, 0xffff);
    out += '0';
    out += static_cast<char>(length >> 8);
    out += static_cast<char>(length & 0xff);
    out.append(s.substr(start, i - start));
  }
  out += '\0';
  out.append(s);
}

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

// See parse_rfc3339() in the header.
std::optional<double> rfc3339_seconds(std::string_view s) {
  const auto t = common::parse_rfc3339(s, common::Rfc3339Syntax::Rfc);
  if (!t) {
    return std::nullopt;
  }
  return static_cast<double>(t->seconds) + t->nanos / 1e9;
}

// An age as kubectl renders it ("5m", "3d4h", "2y10d") to seconds.
std::optional<int64_t> parse_age(std::string_view s) {
  if (s.empty()) {
    return std::nullopt;
  }
  int64_t total = 0;
  size_t pos = 0;
  while (pos < s.size()) {
    int64_t amount = 0;
    const auto [end, ec] = std::from_chars(s.data() + pos, s.data() + s.size(), amount);
    if (ec != std::errc() || end == s.data() + s.size()) {
      return std::nullopt;
    }
    pos = static_cast<size_t>(end - s.data());
    switch (s[pos++]) {
      case 's':
        total += amount;
        break;
      case 'm':
        total += amount * 60;
        break;
      case 'h':
        total += amount * 3600;
        break;
      case 'd':
        total += amount * 86400;
        break;
      case 'y':
        total += amount * 365 * 86400;
        break;
      default:
        return std::nullopt;
    }
  }
  return total;
}

std::string cell_text_of(const nlohmann::json& cell) {
  switch (cell.type()) {
    case nlohmann::json::value_t::string:
      return cell.get<std::string>();
    case nlohmann::json::value_t::null:
      return {};
    default:
      return cell.dump();
  }
}

// Text counts by its leading number ("2 (5m ago)" is 2).
double number_key_text(std::string_view s) {
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end != s.data() ? value : kNoKey;
}

// A number cell's value; a string counts by its leading number.
double number_key(const nlohmann::json& cell) {
  if (cell.is_number()) {
    return cell.get<double>();
  }
  if (cell.is_string()) {
    return number_key_text(cell.get_ref<const std::string&>());
  }
  return kNoKey;
}

double time_key_text(std::string_view s, double now_s) {
  if (const auto instant = rfc3339_seconds(s)) {
    return *instant;
  }
  if (const auto age = parse_age(s)) {
    return now_s - static_cast<double>(*age);
  }
  return kNoKey;
}

double time_key(const nlohmann::json& cell, double now_s) {
  return cell.is_string() ? time_key_text(cell.get_ref<const std::string&>(), now_s) : kNoKey;
}


bool is_age_column(std::string_view name) {
  return lowercase(name) == "age";
}

ColumnKind kind_of(const std::string& type, const std::string& name) {
  if (type == "integer" || type == "number") {
    return ColumnKind::Number;
  }
  if (type == "date" || is_age_column(name)) {
    return ColumnKind::Time;
  }
  return ColumnKind::Text;
}

TableColumn namespace_column_definition() {
  return TableColumn{"Namespace", "string", "", 0, ColumnKind::Text};
}

}  // namespace

std::optional<double> parse_rfc3339(std::string_view text) {
  return rfc3339_seconds(text);
}

std::string human_age(int64_t seconds) {
  if (seconds < -1) {
    return "<invalid>";
  }
  seconds = std::max<int64_t>(seconds, 0);
  const int64_t minutes = seconds / 60;
  const int64_t hours = seconds / 3600;
  const int64_t days = hours / 24;
  const int64_t years = days / 365;
  auto two = [](int64_t major, const char* major_unit, int64_t minor, const char* minor_unit) {
    std::string out = std::to_string(major) + major_unit;
    if (minor != 0) {
      out += std::to_string(minor) + minor_unit;
    }
    return out;
  };
  if (seconds < 120) {
    return std::to_string(seconds) + "s";
  }
  if (minutes < 10) {
    return two(minutes, "m", seconds % 60, "s");
  }
  if (minutes < 180) {
    return std::to_string(minutes) + "m";
  }
  if (hours < 8) {
    return two(hours, "h", minutes % 60, "m");
  }
  if (hours < 48) {
    return std::to_string(hours) + "h";
  }
  if (hours < 24 * 8) {
    return two(days, "d", hours % 24, "h");
  }
  if (days < 365 * 2) {
    return std::to_string(days) + "d";
  }
  if (days < 365 * 8) {
    return two(years, "y", days % 365, "d");
  }
  return std::to_string(years) + "y";
}

std::optional<std::string> TableView::set_table(const nlohmann::json& table, int64_t now_ms,
                                                bool namespace_column) {
  if (!table.is_object()) {
    return "table: not an object";
  }
  const nlohmann::json& definitions = field(table, "columnDefinitions");
  if (!definitions.is_array()) {
    return "table: columnDefinitions is not an array";
  }
  const nlohmann::json& table_rows = field(table, "rows");
  if (!table_rows.is_array() && !table_rows.is_null()) {
    return "table: rows is not an array";
  }
  const double now_s = static_cast<double>(now_ms) / 1000.0;

  std::vector<TableColumn> columns;
  if (namespace_column) {
    columns.push_back(namespace_column_definition());
  }
  const size_t first = columns.size();
  std::optional<size_t> name_cell;  // the served column holding the name
  for (size_t c = 0; c < definitions.size(); ++c) {
    const nlohmann::json& definition = definitions[c];
    if (!field(definition, "name").is_string()) {
      return "table: columnDefinitions[" + std::to_string(c) + "].name is missing";
    }
    TableColumn column;
    column.name = string_field(definition, "name");
    column.type = string_field(definition, "type");
    column.format = string_field(definition, "format");
    const nlohmann::json& priority = field(definition, "priority");
    column.priority = priority.is_number_integer() ? priority.get<int>() : 0;
    column.kind = kind_of(column.type, column.name);
    if (!name_cell && column.format == "name") {
      name_cell = c;
    }
    columns.push_back(std::move(column));
  }

  std::vector<TableRow> rows;
  std::vector<SortKeys> keys(columns.size());
  const size_t row_total = table_rows.is_array() ? table_rows.size() : 0;
  rows.reserve(row_total);
  static const nlohmann::json kAbsent;  // a row with fewer cells than columns
  for (size_t r = 0; r < row_total; ++r) {
    const nlohmann::json& served = table_rows[r];
    const nlohmann::json& cells = field(served, "cells");
    if (!cells.is_array()) {
      return "table: rows[" + std::to_string(r) + "].cells is not an array";
    }
    const nlohmann::json& metadata = field(field(served, "object"), "metadata");
    TableRow row;
    row.namespace_ = string_field(metadata, "namespace");
    row.name = string_field(metadata, "name");
    if (row.name.empty() && name_cell && *name_cell < cells.size()) {
      row.name = cell_text_of(cells[*name_cell]);
    }
    row.labels = field(metadata, "labels");
    const double created = [&] {
      const auto instant = rfc3339_seconds(string_field(metadata, "creationTimestamp"));
      return instant ? *instant : kNoKey;
    }();
    row.cells.reserve(columns.size());
    if (namespace_column) {
      row.cells.push_back(row.namespace_);
      keys[0].add_text(row.namespace_);
    }
    for (size_t c = first; c < columns.size(); ++c) {
      const nlohmann::json& cell = c - first < cells.size() ? cells[c - first] : kAbsent;
      row.cells.push_back(cell_text_of(cell));
      if (columns[c].kind == ColumnKind::Text) {
        keys[c].add_text(row.cells.back());
      } else if (columns[c].kind == ColumnKind::Number) {
        keys[c].numbers.push_back(number_key(cell));
      } else {
        // An Age cell is rounded ("3d"); the creation time it came from orders exactly.
        const bool exact = is_age_column(columns[c].name) && !std::isnan(created);
        keys[c].numbers.push_back(exact ? created : time_key(cell, now_s));
      }
    }
    rows.push_back(std::move(row));
  }
  load(std::move(columns), std::move(rows), std::move(keys), namespace_column);
  return std::nullopt;
}

void TableView::set_from_cache(const ResourceCache& cache, int64_t now_ms, bool namespace_column) {
  std::vector<TableColumn> columns;
  if (namespace_column) {
    columns.push_back(namespace_column_definition());
  }
  columns.push_back(TableColumn{"Name", "string", "name", 0, ColumnKind::Text});
  columns.push_back(TableColumn{"Age", "date", "", 0, ColumnKind::Time});
  std::vector<SortKeys> keys(columns.size());
  SortKeys& names = keys[namespace_column ? 1 : 0];
  std::vector<double>& ages = keys.back().numbers;

  std::vector<TableRow> rows;
  rows.reserve(cache.size());
  ages.reserve(cache.size());
  const double now_s = static_cast<double>(now_ms) / 1000.0;
  for (const auto& [key, cached] : cache.objects()) {
    const nlohmann::json& metadata = field(cached.object(), "metadata");
    const auto created = rfc3339_seconds(string_field(metadata, "creationTimestamp"));
    TableRow row;
    row.namespace_ = cached.namespace_;
    row.name = cached.name;
    row.labels = field(metadata, "labels");
    if (namespace_column) {
      row.cells.push_back(row.namespace_);
      keys[0].add_text(row.namespace_);
    }
    row.cells.push_back(row.name);
    names.add_text(row.name);
    row.cells.push_back(created ? human_age(static_cast<int64_t>(std::floor(now_s - *created)))
                                : "<unknown>");
    ages.push_back(created ? *created : kNoKey);
    rows.push_back(std::move(row));
  }
  load(std::move(columns), std::move(rows), std::move(keys), namespace_column);
}

std::string table_cell_text(const nlohmann::json& cell) {
  return cell_text_of(cell);
}

void TableView::set_rows(std::vector<TableColumn> columns, std::vector<TableRow> rows,
                         const std::vector<double>& created, int64_t now_ms,
                         bool namespace_column) {
  for (TableColumn& column : columns) {
    column.kind = kind_of(column.type, column.name);
  }
  if (namespace_column) {
    columns.insert(columns.begin(), namespace_column_definition());
  }
  const size_t first = namespace_column ? 1 : 0;
  std::vector<SortKeys> keys(columns.size());
  for (size_t c = first; c < columns.size(); ++c) {
    if (columns[c].kind != ColumnKind::Text) {
      keys[c].numbers.reserve(rows.size());
    }
  }
  const double now_s = static_cast<double>(now_ms) / 1000.0;
  for (size_t r = 0; r < rows.size(); ++r) {
    TableRow& row = rows[r];
    row.cells.resize(columns.size() - first);
    if (namespace_column) {
      row.cells.insert(row.cells.begin(), row.namespace_);
      keys[0].add_text(row.namespace_);
    }
    const double row_created = r < created.size() ? created[r] : kNoKey;
    for (size_t c = first; c < columns.size(); ++c) {
      const std::string& cell = row.cells[c];
      if (columns[c].kind == ColumnKind::Text) {
        keys[c].add_text(cell);
      } else if (columns[c].kind == ColumnKind::Number) {
        keys[c].numbers.push_back(number_key_text(cell));
      } else {
        const bool exact = is_age_column(columns[c].name) && !std::isnan(row_created);
        keys[c].numbers.push_back(exact ? row_created : time_key_text(cell, now_s));
      }
    }
  }
  load(std::move(columns), std::move(rows), std::move(keys), namespace_column);
}

void TableView::SortKeys::add_text(std::string_view cell) {
  const size_t start = text.size();
  append_natural_key(cell, text);
  text_starts.push_back(static_cast<uint32_t>(start));
  text_lengths.push_back(static_cast<uint32_t>(text.size() - start));
}

void TableView::SortKeys::set_text(size_t index, std::string_view cell) {
  unused_text += text_lengths[index];
  const size_t start = text.size();
  append_natural_key(cell, text);
  text_starts[index] = static_cast<uint32_t>(start);
  text_lengths[index] = static_cast<uint32_t>(text.size() - start);
  if (unused_text > text.size() / 2) {
    std::string packed;
    packed.reserve(text.size() - unused_text);
    for (size_t r = 0; r < text_starts.size(); ++r) {
      const std::string_view key = text_key(r);
      text_starts[r] = static_cast<uint32_t>(packed.size());
      packed.append(key);
    }
    text = std::move(packed);
    unused_text = 0;
  }
}

void TableView::load(std::vector<TableColumn> columns, std::vector<TableRow> rows,
                     std::vector<SortKeys> keys, bool namespace_column) {
  std::optional<std::string> sorted_by;
  if (sort_column_) {
    sorted_by = columns_[*sort_column_].name;
  }
  std::optional<ObjectKey> selection;
  if (selected_row_) {
    selection = ObjectKey{rows_[*selected_row_].namespace_, rows_[*selected_row_].name};
  }

  columns_ = std::move(columns);
  namespace_column_ = namespace_column;
  rows_ = std::move(rows);
  free_.clear();
  load_order_.resize(rows_.size());
  std::iota(load_order_.begin(), load_order_.end(), 0u);
  key_ordered_ = true;
  for (uint32_t r = 1; r < rows_.size() && key_ordered_; ++r) {
    key_ordered_ = key_less(r - 1, r);
  }
  keys_ = std::move(keys);
  rankings_.assign(columns_.size(), Ranking{});
  lower_names_.clear();
  lower_names_.reserve(rows_.size());
  for (const TableRow& row : rows_) {
    lower_names_.push_back(lowercase(row.name));
  }

  sort_column_.reset();
  if (sorted_by) {
    const auto it = std::find_if(columns_.begin(), columns_.end(),
                                 [&](const TableColumn& c) { return c.name == *sorted_by; });
    if (it != columns_.end()) {
      sort_column_ = static_cast<size_t>(it - columns_.begin());
    }
  }
  selected_row_.reset();
  if (selection) {
    if (const std::optional<uint32_t> found = find_row(selection->first, selection->second)) {
      selected_row_ = *found;  // its position is found as the visible rows are rebuilt
    }
  }
  rebuild_filter();
  rebuild_order();
}

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

void TableView::set_filter(std::string_view text) {
  filter_text_ = std::string(text);
  selector_.reset();
  lower_filter_.clear();
  mode_ = FilterMode::None;
  const std::string_view trimmed = trim(text);
  if (!trimmed.empty()) {
    std::string error;
    std::optional<LabelSelector> selector = LabelSelector::parse(trimmed, error);
    if (selector && selector->has_operator()) {
      mode_ = FilterMode::Labels;
      selector_ = std::move(selector);
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

void TableView::clear_selection() {
  selected_row_.reset();
  selected_position_.reset();
}

const TableRow* TableView::selected() const {
  return selected_row_ ? &rows_[*selected_row_] : nullptr;
}

}  // namespace console::model
