// The table's cells (table_cells.h): display text, natural text keys, number and time keys, ages
// as kubectl renders and reads them, and the per-column key buffers (TableView::SortKeys).
#include "model/table_cells.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "common/rfc3339.h"

namespace console::model {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
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

}  // namespace

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), lower);
  return out;
}

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

std::optional<double> rfc3339_seconds(std::string_view s) {
  const auto t = common::parse_rfc3339(s, common::Rfc3339Syntax::Rfc);
  if (!t) {
    return std::nullopt;
  }
  return static_cast<double>(t->seconds) + t->nanos / 1e9;
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

double number_key_text(std::string_view s) {
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end != s.data() ? value : kNoKey;
}

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

std::string table_cell_text(const nlohmann::json& cell) {
  return cell_text_of(cell);
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

}  // namespace console::model
