#include "console/model/kind_table.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/json_fields.h"

namespace console::model {

namespace {

using json = nlohmann::json;

// Stand-in columns for servers that send no Table.
std::vector<TableColumn> name_age_columns() {
  return {TableColumn{"Name", "string", "name", 0, ColumnKind::Text},
          TableColumn{"Age", "string", "", 0, ColumnKind::Time}};
}

std::vector<std::string> cells_text(const json& cells) {
  std::vector<std::string> out;
  if (cells.is_array()) {
    out.reserve(cells.size());
    for (const json& cell : cells) {
      out.push_back(table_cell_text(cell));
    }
  }
  return out;
}

double created_seconds(const CachedObject& object) {
  const auto created =
      parse_rfc3339(string_field(field(object.object(), "metadata"), "creationTimestamp"));
  return created ? *created : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

KindTable::KindTable(ApiResource resource)
    : resource_(std::move(resource)), columns_(name_age_columns()) {}

std::string KindTable::api_version() const {
  return resource_.group.empty() ? resource_.version : resource_.group + "/" + resource_.version;
}

std::optional<std::string> KindTable::on_list(json columns, std::vector<ObjectRow> rows,
                                              const std::string& resource_version, int64_t now_ms) {
  std::vector<TableColumn> parsed;
  if (!columns.is_null()) {
    if (!columns.is_array()) {
      return "list: columnDefinitions is not an array";
    }
    for (size_t c = 0; c < columns.size(); ++c) {
      const json& definition = columns[c];
      if (!field(definition, "name").is_string()) {
        return "list: columnDefinitions[" + std::to_string(c) + "].name is missing";
      }
      TableColumn column;
      column.name = string_field(definition, "name");
      column.type = string_field(definition, "type");
      column.format = string_field(definition, "format");
      const json& priority = field(definition, "priority");
      column.priority = priority.is_number_integer() ? priority.get<int>() : 0;
      parsed.push_back(std::move(column));
    }
  }
  json list = {{"kind", resource_.kind + "List"},
               {"apiVersion", api_version()},
               {"metadata", {{"resourceVersion", resource_version}}},
               {"items", json::array()}};
  json& items = list["items"];
  items.get_ref<json::array_t&>().reserve(rows.size());
  std::map<ObjectKey, Cells, ObjectKeyLess> cells;
  for (ObjectRow& row : rows) {
    const json& metadata = field(row.object, "metadata");
    if (!row.cells.is_null()) {
      cells.emplace(ObjectKey{string_field(metadata, "namespace"), string_field(metadata, "name")},
                    cells_text(row.cells));
    }
    items.push_back(std::move(row.object));
  }
  if (auto error = cache_.replace(list, now_ms)) {
    return error;
  }
  server_columns_ = !columns.is_null();
  columns_ = server_columns_ ? std::move(parsed) : name_age_columns();
  cells_ = std::move(cells);
  if (first_listed_ms_ == 0) {
    first_listed_ms_ = now_ms;
  }
  relisted_ = true;
  changed_.clear();
  changed_keys_.clear();
  return std::nullopt;
}

ApplyOutcome KindTable::on_event(const std::string& type, const json& object, json cells,
                                 int64_t now_ms) {
  const ApplyOutcome outcome = cache_.apply(json{{"type", type}, {"object", object}}, now_ms);
  const json& metadata = field(object, "metadata");
  ObjectKey key{string_field(metadata, "namespace"), string_field(metadata, "name")};
  switch (outcome) {
    case ApplyOutcome::Added:
    case ApplyOutcome::Modified:
      if (cells.is_null()) {
        cells_.erase(key);
      } else {
        cells_[key] = cells_text(cells);
      }
      note_change(std::move(key));
      break;
    case ApplyOutcome::Deleted:
      cells_.erase(key);
      note_change(std::move(key));
      break;
    default:
      break;
  }
  return outcome;
}

KindTable::Cells KindTable::stand_in_cells(const CachedObject& object, int64_t now_ms) const {
  if (!server_columns_) {
    return {object.name, age(object.namespace_, object.name, now_ms)};
  }
  Cells cells;
  for (const TableColumn& column : columns_) {
    cells.push_back(column.format == "name" ? object.name : std::string());
  }
  return cells;
}

void KindTable::note_change(ObjectKey key) {
  if (relisted_ || (!view_namespace_.empty() && key.first != view_namespace_)) {
    return;
  }
  if (changed_keys_.insert(key).second) {
    changed_.push_back(std::move(key));
  }
}

TableRow KindTable::table_row(const CachedObject& object, const Cells* cells,
                              int64_t now_ms) const {
  TableRow row;
  row.namespace_ = object.namespace_;
  row.name = object.name;
  row.cells = server_columns_ && cells != nullptr ? *cells : stand_in_cells(object, now_ms);
  if (const json& labels = field(field(object.object(), "metadata"), "labels");
      labels.is_object()) {
    row.labels = labels;
  }
  return row;
}

bool KindTable::apply_changes(int64_t now_ms, size_t max_rows) {
  if (relisted_ || changed_.size() > std::max(max_rows, view_.row_count() / 4)) {
    return false;
  }
  for (size_t done = 0; done < max_rows && !changed_.empty(); ++done) {
    const ObjectKey key = std::move(changed_.front());
    changed_.pop_front();
    changed_keys_.erase(key);
    const CachedObject* object = cache_.find(key.first, key.second);
    if (object == nullptr) {
      view_.erase_row(key.first, key.second);  // false when it was never shown: nothing to do
      continue;
    }
    const auto cells = cells_.find(key);
    if (!view_.upsert_row(table_row(*object, cells != cells_.end() ? &cells->second : nullptr,
                                    now_ms),
                          created_seconds(*object), now_ms)) {
      relisted_ = true;  // the view's rows are not in key order: only a rebuild can help
      return false;
    }
  }
  return true;
}

void KindTable::rebuild(const std::string& namespace_, int64_t now_ms) {
  const ObjectMap& objects = cache_.objects();
  auto it = namespace_.empty() ? objects.begin()
                               : objects.lower_bound(ObjectKeyLess::View{namespace_, ""});
  auto cells =
      namespace_.empty() ? cells_.begin() : cells_.lower_bound(ObjectKeyLess::View{namespace_, ""});
  const size_t expected = namespace_.empty() ? objects.size() : cache_.count_in(namespace_);
  std::vector<TableRow> rows;
  std::vector<double> created;
  rows.reserve(expected);
  created.reserve(expected);
  const ObjectKeyLess less;
  for (; it != objects.end(); ++it) {
    if (!namespace_.empty() && it->first.first != namespace_) {
      break;
    }
    const CachedObject& object = it->second;
    // Both maps are ordered alike: step the cells to this object's key.
    while (cells != cells_.end() && less(cells->first, it->first)) {
      ++cells;
    }
    const bool has_cells = cells != cells_.end() && cells->first == it->first;
    rows.push_back(table_row(object, has_cells ? &cells->second : nullptr, now_ms));
    created.push_back(created_seconds(object));
  }
  const bool namespace_column = namespace_.empty() && resource_.namespaced;
  view_.set_rows(columns_, std::move(rows), created, now_ms, namespace_column);
  view_namespace_ = namespace_;
  relisted_ = false;
  changed_.clear();
  changed_keys_.clear();
}

size_t KindTable::count_in(std::string_view namespace_) const {
  return namespace_.empty() ? cache_.size() : cache_.count_in(namespace_);
}

std::string KindTable::age(std::string_view namespace_, std::string_view name,
                           int64_t now_ms) const {
  const CachedObject* object = cache_.find(namespace_, name);
  if (object == nullptr) {
    return {};
  }
  const double created = created_seconds(*object);
  if (std::isnan(created)) {
    return {};
  }
  return human_age(
      static_cast<int64_t>(std::floor(static_cast<double>(now_ms) / 1000.0 - created)));
}

bool KindTable::recently_changed(std::string_view namespace_, std::string_view name, int64_t now_ms,
                                 int64_t window_ms) const {
  const CachedObject* object = cache_.find(namespace_, name);
  return object != nullptr && object->changed_at_ms() > first_listed_ms_ &&
         now_ms - object->changed_at_ms() < window_ms;
}

}  // namespace console::model
