#include "console/model/table_view.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

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
uint32_t rank_texts(const std::string& text, const std::vector<uint32_t>& ends,
                    std::vector<uint32_t>& rank) {
  constexpr size_t kHeadBytes = 16;
  struct Keyed {
    uint64_t head[2];
    uint32_t offset;
    uint32_t length;  // after the common bytes
    uint32_t row;
  };
  std::vector<Keyed> sorted(ends.size());
  for (uint32_t r = 0; r < ends.size(); ++r) {
    const uint32_t start = r == 0 ? 0 : ends[r - 1];
    sorted[r] = {{0, 0}, start, ends[r] - start, r};
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

// Days since 1970-01-01 of a proleptic Gregorian date (month 1-12).
int64_t days_since_epoch(int64_t year, int64_t month, int64_t day) {
  // Count from March so that the leap day ends the year.
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;
  const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

bool read_number(std::string_view s, size_t& pos, size_t digits, int64_t& out) {
  if (pos + digits > s.size()) {
    return false;
  }
  out = 0;
  for (size_t k = 0; k < digits; ++k) {
    if (!is_digit(s[pos + k])) {
      return false;
    }
    out = out * 10 + (s[pos + k] - '0');
  }
  pos += digits;
  return true;
}

bool expect(std::string_view s, size_t& pos, char c) {
  if (pos < s.size() && (s[pos] == c || lower(s[pos]) == lower(c))) {
    ++pos;
    return true;
  }
  return false;
}

// See parse_rfc3339() in the header.
std::optional<double> rfc3339_seconds(std::string_view s) {
  size_t pos = 0;
  int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!read_number(s, pos, 4, year) || !expect(s, pos, '-') || !read_number(s, pos, 2, month) ||
      !expect(s, pos, '-') || !read_number(s, pos, 2, day) || !expect(s, pos, 'T') ||
      !read_number(s, pos, 2, hour) || !expect(s, pos, ':') || !read_number(s, pos, 2, minute) ||
      !expect(s, pos, ':') || !read_number(s, pos, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  double fraction = 0;
  if (pos < s.size() && s[pos] == '.') {
    double scale = 0.1;
    ++pos;
    const size_t start = pos;
    while (pos < s.size() && is_digit(s[pos])) {
      fraction += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start) {
      return std::nullopt;
    }
  }
  int64_t offset = 0;
  if (!expect(s, pos, 'Z')) {
    if (pos >= s.size() || (s[pos] != '+' && s[pos] != '-')) {
      return std::nullopt;
    }
    const int64_t sign = s[pos++] == '-' ? -1 : 1;
    int64_t offset_hours = 0, offset_minutes = 0;
    if (!read_number(s, pos, 2, offset_hours) || !expect(s, pos, ':') ||
        !read_number(s, pos, 2, offset_minutes)) {
      return std::nullopt;
    }
    offset = sign * (offset_hours * 3600 + offset_minutes * 60);
  }
  if (pos != s.size()) {
    return std::nullopt;
  }
  const int64_t seconds =
      days_since_epoch(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
  return static_cast<double>(seconds) + fraction;
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
  load(std::move(columns), std::move(rows), std::move(keys));
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
  load(std::move(columns), std::move(rows), std::move(keys));
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
  load(std::move(columns), std::move(rows), std::move(keys));
}

void TableView::SortKeys::add_text(std::string_view cell) {
  append_natural_key(cell, text);
  text_ends.push_back(static_cast<uint32_t>(text.size()));
}

void TableView::load(std::vector<TableColumn> columns, std::vector<TableRow> rows,
                     std::vector<SortKeys> keys) {
  std::optional<std::string> sorted_by;
  if (sort_column_) {
    sorted_by = columns_[*sort_column_].name;
  }
  std::optional<ObjectKey> selection;
  if (selected_row_) {
    selection = ObjectKey{rows_[*selected_row_].namespace_, rows_[*selected_row_].name};
  }

  columns_ = std::move(columns);
  rows_ = std::move(rows);
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
    select(selection->first, selection->second);
  }
  rebuild_filter();
  rebuild_order();
}

const TableView::Ranking& TableView::ranking(size_t column) {
  Ranking& ranking = rankings_[column];
  if (ranking.rank.size() == rows_.size()) {
    return ranking;
  }
  ranking.rank.assign(rows_.size(), kMissing);
  const SortKeys& keys = keys_[column];
  ranking.distinct = columns_[column].kind == ColumnKind::Text
                         ? rank_texts(keys.text, keys.text_ends, ranking.rank)
                         : rank_numbers(keys.numbers, ranking.rank);
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
  order_.resize(rows_.size());
  if (!sort_column_) {
    std::iota(order_.begin(), order_.end(), 0u);
    rebuild_visible();
    return;
  }
  const Ranking& ranking = this->ranking(*sort_column_);
  const bool descending = direction_ == SortDirection::Descending;
  std::vector<uint64_t> packed(rows_.size());
  for (uint32_t r = 0; r < rows_.size(); ++r) {
    uint64_t rank = ranking.rank[r];
    if (descending && rank != kMissing) {
      rank = ranking.distinct - 1 - rank;
    }
    packed[r] = rank << 32 | r;
  }
  std::sort(packed.begin(), packed.end());
  for (size_t k = 0; k < packed.size(); ++k) {
    order_[k] = static_cast<uint32_t>(packed[k]);
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

void TableView::rebuild_filter() {
  passes_.assign(rows_.size(), 1);
  for (size_t r = 0; r < rows_.size(); ++r) {
    if (mode_ == FilterMode::Name) {
      passes_[r] = lower_names_[r].find(lower_filter_) != std::string::npos;
    } else if (mode_ == FilterMode::Labels) {
      passes_[r] = selector_->matches(rows_[r].labels);
    }
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
  const auto it = std::find_if(rows_.begin(), rows_.end(), [&](const TableRow& row) {
    return row.namespace_ == namespace_ && row.name == name;
  });
  if (it == rows_.end()) {
    return false;
  }
  selected_row_ = static_cast<size_t>(it - rows_.begin());
  const auto position = std::find(visible_.begin(), visible_.end(), *selected_row_);
  selected_position_.reset();
  if (position != visible_.end()) {
    selected_position_ = static_cast<size_t>(position - visible_.begin());
  }
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
