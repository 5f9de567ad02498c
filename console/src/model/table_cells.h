// The table's cells: their display text and the keys they sort by (natural text keys, numbers,
// times and kubectl's ages), shared by loading, sorting, filtering and row changes.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "console/model/table_view.h"

namespace console::model {

// The key of a cell with no number or time.
inline constexpr double kNoKey = std::numeric_limits<double>::quiet_NaN();

// ASCII letters lowercased.
std::string lowercase(std::string_view s);

// Appends the natural sort key of `s`: bytes whose plain byte order is the natural order.
// Letters are lowercased. A digit run becomes '0' (so it sorts where a digit would against other
// characters), its length without leading zeros (two bytes, big-endian) and those digits, so runs
// compare by value. Then a NUL and `s` itself settle ties between texts equal so far ("a01" and
// "a1", "A" and "a"), so that only equal texts get equal keys.
void append_natural_key(std::string_view s, std::string& out);

// See parse_rfc3339() in the header.
std::optional<double> rfc3339_seconds(std::string_view s);

// A cell's display text, as table_cell_text() gives it.
std::string cell_text_of(const nlohmann::json& cell);

// Text counts by its leading number ("2 (5m ago)" is 2).
double number_key_text(std::string_view s);

// A number cell's value; a string counts by its leading number.
double number_key(const nlohmann::json& cell);

// A time cell's instant in seconds: an RFC 3339 time, or an age before `now_s`.
double time_key_text(std::string_view s, double now_s);
double time_key(const nlohmann::json& cell, double now_s);

bool is_age_column(std::string_view name);
// A served column's kind from its type and name.
ColumnKind kind_of(const std::string& type, const std::string& name);
// The column added first for "All namespaces".
TableColumn namespace_column_definition();

}  // namespace console::model
