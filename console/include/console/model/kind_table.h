// One resource kind as the console shows it: its objects in every namespace (a ResourceCache fed
// by a LIST and then watch events), the server's Table row of each object (the cells kubectl get
// prints), and the TableView the centre table draws, with its sort, filter and selection.
//
// The objects of every namespace are kept, so switching the namespace selector needs no request:
// rebuild() loads the view with the rows of one namespace (or all, with a Namespace column first).
// A rebuild touches every row (about 0.1 s for 50,000), too slow for a frame, so a watch event
// does not rebuild: on_event() notes which row changed, and apply_changes() updates those rows
// of the view one by one in place (TableView::upsert_row, O(log n) each), a bounded number per
// call, so the caller can spread a burst over frames. Only a LIST, a switch of namespace or a
// burst that changes a large part of the rows needs rebuild().
//
// Example: on_list(columns [Name, Data, Age], rows [default/a, kube-system/b], rv "7") then
// rebuild("default") -> the view holds one row, a; on_event(ADDED default/c) -> stale() is true;
// apply_changes() -> rows a and c, stale() false; rebuild("") -> Namespace, Name, Data, Age for
// a, b and c.
//
// When the server sends plain lists instead of Tables (a server without Table support), the
// columns are Name and Age.
//
// Pure state, not thread-safe: the UI thread owns it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "console/model/resource_cache.h"
#include "console/model/resource_tree.h"
#include "console/model/table_view.h"

namespace console::model {

// One object from a LIST, with its Table row's cells (null when the server sent no Table).
struct ObjectRow {
  nlohmann::json object;
  nlohmann::json cells;
};

class KindTable {
 public:
  explicit KindTable(ApiResource resource);

  const ApiResource& resource() const { return resource_; }
  // "v1" or "apps/v1".
  std::string api_version() const;

  // Replaces the objects with a LIST's. `columns` are the Table's columnDefinitions, or null for
  // a plain list. Returns an error message and changes nothing when the list is malformed.
  std::optional<std::string> on_list(nlohmann::json columns, std::vector<ObjectRow> rows,
                                     const std::string& resource_version, int64_t now_ms);
  // Applies one watch event; `cells` is the event's Table row (null without one).
  ApplyOutcome on_event(const std::string& type, const nlohmann::json& object, nlohmann::json cells,
                        int64_t now_ms);

  bool listed() const { return first_listed_ms_ != 0; }
  // When the first LIST arrived; 0 before. Objects changed after it are "recently changed".
  int64_t first_listed_ms() const { return first_listed_ms_; }
  const ResourceCache& cache() const { return cache_; }

  // True when the view does not show the objects as they are: before the first rebuild(), after
  // a LIST, or while changed rows wait for apply_changes().
  bool stale() const { return relisted_ || !changed_.empty(); }
  // Loads the view with the rows of `namespace_` ("" for all namespaces). Keeps the view's sort,
  // filter and selection as TableView::set_table() does.
  void rebuild(const std::string& namespace_, int64_t now_ms);
  // Updates at most `max_rows` of the rows the watch changed since the view was built, oldest
  // change first, in place (sort, filter and selection kept); the rest wait for the next call.
  // Returns false and changes nothing when the view needs a rebuild() instead: before the first
  // one, after a LIST, or when more rows wait than max_rows and a quarter of the view.
  bool apply_changes(int64_t now_ms, size_t max_rows);
  // The namespace the view was last built for.
  const std::string& view_namespace() const { return view_namespace_; }
  TableView& view() { return view_; }
  const TableView& view() const { return view_; }

  // Objects in `namespace_` ("" for all).
  size_t count_in(std::string_view namespace_) const;

  // The age of an object now, as kubectl prints it ("" when unknown): the server's Age cell was
  // right when the row was rendered but goes stale while the console shows it.
  std::string age(std::string_view namespace_, std::string_view name, int64_t now_ms) const;
  // Whether an object was added or changed by the watch within `window_ms` before `now_ms`.
  bool recently_changed(std::string_view namespace_, std::string_view name, int64_t now_ms,
                        int64_t window_ms) const;

 private:
  using Cells = std::vector<std::string>;
  // The cells of an object without a server row: the name (and the age, without a Table).
  Cells stand_in_cells(const CachedObject& object, int64_t now_ms) const;
  // An object's row for the view; `cells` its server row, or null.
  TableRow table_row(const CachedObject& object, const Cells* cells, int64_t now_ms) const;
  // Notes a changed row for apply_changes(), when the view shows its namespace.
  void note_change(ObjectKey key);

  ApiResource resource_;
  ResourceCache cache_;
  std::vector<TableColumn> columns_;  // the server's columnDefinitions, or Name and Age
  bool server_columns_ = false;
  // The server's row per object, as display text. Ordered as the cache's objects, so that a
  // rebuild walks both together.
  std::map<ObjectKey, Cells, ObjectKeyLess> cells_;
  int64_t first_listed_ms_ = 0;
  bool relisted_ = true;  // the view needs a rebuild()
  // Rows changed since the view was built, oldest first, each once.
  std::deque<ObjectKey> changed_;
  std::set<ObjectKey, ObjectKeyLess> changed_keys_;
  std::string view_namespace_;
  TableView view_;
};

}  // namespace console::model
