// TableView loaded: from a server Table, from rows kept by the caller, or NAME and AGE from the
// resource cache; a load keeps the sort column, filter and selection that still apply.
// TableView's other members are spread by concept: table_sort.cpp, table_filter.cpp (the filter,
// the visible rows, the selection) and table_row_changes.cpp; cells and their keys are
// table_cells.cpp.
#include "console/model/table_view.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "model/json_fields.h"
#include "model/table_cells.h"

namespace console::model {

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

}  // namespace console::model
