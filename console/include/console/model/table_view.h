// The rows of the console's centre table and the user's view of them: sort column and direction,
// filter, selection. Rows come from the server's Table rendering (meta.k8s.io/v1 Table, the same
// columns kubectl prints) or, for kinds the server renders no table for, NAME and AGE from the
// resource cache.
//
// Sorting and filtering touch every row, so they must stay far below a frame for 50,000 rows. On
// load each cell's sort key is computed once, while the row is at hand: numbers and times as
// doubles, text as a byte string whose plain order is the natural order, all of a column's in one
// buffer. The first sort by a column ranks its rows from those keys; every sort after that orders
// packed 64-bit (rank, load index) keys, with no strings compared and nothing allocated per row.
// A filter change tests each row once and keeps the verdicts, so a re-sort does not test them.
//
// A watch changes a few rows at a time: upsert_row() and erase_row() change one row in place
// (its keys recomputed, its verdict retested) and move it within the sorted and the visible
// order by binary search, so a change costs O(log n) comparisons plus moving the 4-byte indices
// after it when its place changes (none when it stays where it was). They need rows loaded in
// (namespace, name) order, as KindTable loads them: that order is then the load order, and ties
// and the unsorted view keep it.
//
// Sort order per column kind: numbers numerically; times chronologically (ascending = oldest
// first, as `kubectl --sort-by=.metadata.creationTimestamp`); text naturally ("pod-2" before
// "pod-10", letters ignoring case). Cells with no number or time sort last in both directions;
// equal keys keep load order.
//
// Pure state, not thread-safe: the UI thread owns it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "console/model/label_selector.h"
#include "console/model/resource_cache.h"

namespace console::model {

enum class ColumnKind { Text, Number, Time };

struct TableColumn {
  std::string name;
  std::string type;    // as served: string, integer, number, boolean, date
  std::string format;  // as served: name, date, ...
  int priority = 0;    // 0: always shown; higher: only in wide output
  ColumnKind kind = ColumnKind::Text;
};

struct TableRow {
  std::string namespace_;  // empty for cluster-scoped objects
  std::string name;
  std::vector<std::string> cells;  // display text, one per column
  nlohmann::json labels;           // metadata.labels, for label selector filters
};

enum class SortDirection { Ascending, Descending };

enum class FilterMode {
  None,    // empty filter: every row
  Name,    // case-insensitive substring of the name
  Labels,  // a label selector with an operator, e.g. "app=web" or "!canary"
};

// kubectl's rendering of an age: "45s", "3m20s", "5h", "3d4h", "2y10d".
std::string human_age(int64_t seconds);

// A Table cell as the table shows it: strings as they are, null as "", anything else as JSON.
std::string table_cell_text(const nlohmann::json& cell);

// An RFC 3339 time ("2024-06-01T12:00:00Z", "...:00.5+02:00") as seconds since the epoch;
// nullopt when it is not one.
std::optional<double> parse_rfc3339(std::string_view text);

class TableView {
 public:
  // Loads a server Table ({columnDefinitions, rows: [{cells, object}]}); `now_ms` turns ages
  // such as "5m" into instants for sorting. With `namespace_column` a "Namespace" column comes
  // first (for "All namespaces"). Keeps the sort column (by name), filter and selection when they
  // still apply. Returns an error message and changes nothing when the table is malformed.
  std::optional<std::string> set_table(const nlohmann::json& table, int64_t now_ms,
                                       bool namespace_column);
  // Loads rows already in display form, for callers that keep them between loads (a kind fed by
  // a watch) and so need no Table JSON built and walked: `columns` as served (their kind is
  // derived here, as set_table() derives it), one cell per column in each row, and per row its
  // creation time in seconds since the epoch (NaN when unknown) to order an Age column exactly.
  // A Namespace column comes first with `namespace_column`. Same keeping rules as set_table().
  void set_rows(std::vector<TableColumn> columns, std::vector<TableRow> rows,
                const std::vector<double>& created, int64_t now_ms, bool namespace_column);
  // Loads NAME and AGE (from metadata.creationTimestamp) for every object in `cache`, with the
  // same keeping rules as set_table().
  void set_from_cache(const ResourceCache& cache, int64_t now_ms, bool namespace_column);

  // Adds a row, or replaces the row with the same namespace and name, as set_rows() would load
  // it (`row.cells` as served, one per served column; `created` as there), keeping the sort,
  // filter and selection. Returns false and changes nothing when the view's rows were not loaded
  // in (namespace, name) order.
  bool upsert_row(TableRow row, double created, int64_t now_ms);
  // Removes a row; a selected row is unselected. Returns false when there is no such row or the
  // rows were not loaded in (namespace, name) order.
  bool erase_row(std::string_view namespace_, std::string_view name);

  const std::vector<TableColumn>& columns() const { return columns_; }
  size_t row_count() const { return load_order_.size(); }
  // A row by its index, as visible_rows() holds them. After a load the indices 0 to
  // row_count() - 1 are in load order; erase_row() frees an index and upsert_row() reuses it.
  const TableRow& row(size_t index) const { return rows_.at(index); }

  // `column` < columns().size(); otherwise ignored.
  void sort_by(size_t column, SortDirection direction);
  // Back to load order.
  void clear_sort();
  std::optional<size_t> sort_column() const { return sort_column_; }
  SortDirection sort_direction() const { return direction_; }

  // Text that parses as a label selector with an operator filters by labels; anything else is a
  // name substring (so a half-typed "app in (" still searches names).
  void set_filter(std::string_view text);
  const std::string& filter() const { return filter_text_; }
  FilterMode filter_mode() const { return mode_; }

  // Indices into row() that pass the filter, in sort order: what a virtualized list draws.
  // Valid until the next load, sort, filter or row change.
  const std::vector<uint32_t>& visible_rows() const { return visible_; }

  // Selection by identity, so it follows the row through sorts, filters and reloads; a reload
  // without the row clears it. Returns false (selection unchanged) when there is no such row.
  bool select(std::string_view namespace_, std::string_view name);
  void clear_selection();
  // The selected row, or null.
  const TableRow* selected() const;
  // The selected row's index in visible_rows(); nullopt when nothing is selected or the filter
  // hides it.
  std::optional<size_t> selected_position() const { return selected_position_; }

 private:
  // Per column, what its order is computed from, filled while the rows load.
  struct SortKeys {
    std::vector<double> numbers;  // Number and Time columns: per row; NaN when none
    std::string text;             // Text columns: the rows' natural keys, back to back
    std::vector<uint32_t> text_starts;   // per row: where its key starts in `text`
    std::vector<uint32_t> text_lengths;  // per row: its key's length
    size_t unused_text = 0;              // bytes of `text` no row's key uses any more
    void add_text(std::string_view cell);
    // Replaces row `index`'s key (appended; `text` is compacted when half of it is unused).
    void set_text(size_t index, std::string_view cell);
    std::string_view text_key(size_t index) const {
      return std::string_view(text).substr(text_starts[index], text_lengths[index]);
    }
  };
  // Per column: each row's rank under the column's order (equal keys, equal rank); the largest
  // uint32_t for cells with no number or time. Computed when first sorted by, and again after
  // a row changed.
  struct Ranking {
    std::vector<uint32_t> rank;
    uint32_t distinct = 0;
    bool valid = false;
  };

  void load(std::vector<TableColumn> columns, std::vector<TableRow> rows,
            std::vector<SortKeys> keys, bool namespace_column);
  const Ranking& ranking(size_t column);
  void rebuild_order();
  void rebuild_filter();
  void rebuild_visible();
  // One row's keys, lowercased name and filter verdict from its cells.
  void index_row(size_t index, double created, double now_s);
  bool passes_filter(size_t index) const;
  // Whether row `a` comes before row `b` in the current order (the sort, then load order).
  // Only consistent with rebuild_order() when the rows were loaded in (namespace, name) order.
  bool before(uint32_t a, uint32_t b) const;
  bool key_less(uint32_t a, uint32_t b) const;
  // The row with this namespace and name, if any.
  std::optional<uint32_t> find_row(std::string_view namespace_, std::string_view name) const;
  // Where row `index` is in `in` (ordered by before()), which holds it.
  size_t locate(const std::vector<uint32_t>& in, uint32_t index) const;
  // Whether row `in[at]` is still ordered against its neighbours.
  bool in_place(const std::vector<uint32_t>& in, size_t at) const;
  void insert_ordered(std::vector<uint32_t>& in, uint32_t index) const;
  void locate_selection();

  std::vector<TableColumn> columns_;
  bool namespace_column_ = false;
  std::vector<TableRow> rows_;  // by index; erased rows leave an unused index (in free_)
  std::vector<uint32_t> free_;
  std::vector<uint32_t> load_order_;  // every row, in load order
  bool key_ordered_ = false;          // load order is (namespace, name) order
  std::vector<std::string> lower_names_;
  std::vector<SortKeys> keys_;     // per column
  std::vector<Ranking> rankings_;  // per column

  std::optional<size_t> sort_column_;
  SortDirection direction_ = SortDirection::Ascending;
  std::vector<uint32_t> order_;  // every row, in sort order

  std::string filter_text_;
  FilterMode mode_ = FilterMode::None;
  std::string lower_filter_;
  std::optional<LabelSelector> selector_;
  std::vector<uint8_t> passes_;  // per row: 1 when the filter lets it through
  std::vector<uint32_t> visible_;

  std::optional<size_t> selected_row_;
  std::optional<size_t> selected_position_;
};

}  // namespace console::model
