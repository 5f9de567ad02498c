#include "registry/table.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>

#include "registry/custom_resources.h"
#include "registry/go_text.h"
#include "registry/kind_strategy.h"
#include "registry/print_cells.h"

namespace apiserver::registry {
namespace {

using namespace cells;

// The columns a resource is served with; no columns means the default table.
std::vector<TableColumn> columns_of(const Resource& resource) {
  if (!resource.table_columns.empty()) {
    return resource.table_columns;
  }
  return {TableColumn{"Name", "string", "name", 0}, TableColumn{"Created At", "date", "", 0}};
}

bool is_default_table(const std::vector<TableColumn>& columns) {
  return columns.size() == 2 && columns[0].name == "Name" && columns[1].name == "Created At" &&
         columns[1].type == "date";
}

// Cells for columns that no printer knows (a kind added later): Name, Age and Created At are
// filled in, anything else is empty text.
json generic_cells(const std::vector<TableColumn>& columns, const json& obj, const Context& c) {
  json cells = json::array();
  for (const auto& col : columns) {
    if (col.name == "Name") {
      cells.push_back(name_of(obj));
    } else if (col.name == "Created At") {
      cells.push_back(format_rfc3339(time_of(at(obj, "metadata", "creationTimestamp"))));
    } else if (col.name == "Age") {
      cells.push_back(age(obj, c));
    } else {
      cells.push_back("");
    }
  }
  return cells;
}

// A custom resource's cell: its column's JSONPath, typed as the column says (no match, or a
// value of another JSON type, is a null cell).
json custom_cell(const TableColumn& col, const json& obj, const Context& c) {
  json value = eval_column_path(col.json_path, obj);
  if (value.is_null()) {
    return nullptr;
  }
  if (col.type == "integer") {
    return value.is_number() ? json(value.get<int64_t>()) : json(nullptr);
  }
  if (col.type == "number") {
    return value.is_number() ? json(value.get<double>()) : json(nullptr);
  }
  if (col.type == "boolean") {
    return value.is_boolean() ? value : json(nullptr);
  }
  if (col.type == "date") {
    if (!value.is_string()) {
      return nullptr;
    }
    auto t = parse_time(value.get<std::string>());
    return t ? since(*t, c) : std::string("<invalid>");
  }
  return value.is_string() ? value.get<std::string>() : go_print(value, false);
}

json cells_for(const Resource& resource, const std::vector<TableColumn>& columns, const json& obj,
               const Context& c) {
  if (resource.custom) {
    json cells = json::array();
    for (const auto& col : columns) {
      cells.push_back(col.json_path.empty() ? json(name_of(obj)) : custom_cell(col, obj, c));
    }
    return cells;
  }
  if (const KindStrategy* s = kind_strategy(resource.group, resource.kind); s && s->print) {
    return s->print(obj, c);
  }
  return generic_cells(columns, obj, c);
}

// Our own short words; upstream's descriptions are its field documentation.
std::string describe(const TableColumn& col) {
  if (!col.description.empty()) {
    return col.description;
  }
  if (!col.json_path.empty()) {
    return "The value at " + col.json_path + " (JSONPath).";
  }
  if (col.format == "name" && col.name == "Name") {
    return "Name of the object.";
  }
  if (col.name == "Age") {
    return "Time since the object was created.";
  }
  if (col.name == "Created At") {
    return "When the object was created (UTC).";
  }
  return "";
}

json column_definitions(const std::vector<TableColumn>& columns) {
  json defs = json::array();
  for (const auto& col : columns) {
    defs.push_back({{"name", col.name},
                    {"type", col.type},
                    {"format", col.format},
                    {"description", describe(col)},
                    {"priority", col.priority}});
  }
  return defs;
}

json row_object(const json& obj, IncludeObject include) {
  switch (include) {
    case IncludeObject::None:
      return nullptr;  // RawExtension with nothing in it encodes as null
    case IncludeObject::Object:
      return obj;
    case IncludeObject::Metadata:
      break;
  }
  json metadata = at(obj, "metadata");
  return {{"kind", "PartialObjectMetadata"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", metadata.is_object() ? metadata : json::object()}};
}

json build_table(const Resource& resource, const std::vector<const json*>& objects,
                 const TableOptions& options, const std::string& resource_version,
                 const std::string& continue_token, std::optional<int64_t> remaining) {
  const Context c{instant_of(options.now), resource.version};
  const auto columns = columns_of(resource);
  const KindStrategy* strategy = kind_strategy(resource.group, resource.kind);
  const bool has_printer = strategy != nullptr && strategy->print != nullptr;
  const bool default_table = !has_printer && is_default_table(columns);

  json metadata = json::object();
  if (!resource_version.empty()) {
    metadata["resourceVersion"] = resource_version;
  }
  if (!continue_token.empty()) {
    metadata["continue"] = continue_token;
  }
  if (remaining) {
    metadata["remainingItemCount"] = *remaining;
  }

  // The default convertor appends to a nil slice, so an empty list has "rows": null; the
  // printers always return a (possibly empty) slice.
  json rows = default_table ? json(nullptr) : json::array();
  for (const json* obj : objects) {
    json row = {{"cells", cells_for(resource, columns, *obj, c)}};
    if (resource.group.empty() && resource.kind == "Pod") {
      const std::string phase = str(at(*obj, "status", "phase"));
      if (phase == "Succeeded" || phase == "Failed") {
        row["conditions"] =
            json::array({{{"type", "Completed"},
                          {"status", "True"},
                          {"reason", phase},
                          {"message", phase == "Succeeded" ? "Pod completed." : "Pod failed."}}});
      }
    }
    row["object"] = row_object(*obj, options.include);
    if (rows.is_null()) {
      rows = json::array();
    }
    rows.push_back(std::move(row));
  }

  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", std::move(metadata)},
          {"columnDefinitions", options.no_headers ? json(nullptr) : column_definitions(columns)},
          {"rows", std::move(rows)}};
}

}  // namespace

common::Result<IncludeObject> parse_include_object(std::string_view value) {
  if (value.empty() || value == "Metadata") {
    return IncludeObject::Metadata;
  }
  if (value == "None") {
    return IncludeObject::None;
  }
  if (value == "Object") {
    return IncludeObject::Object;
  }
  return "unrecognized includeObject value: \"" + std::string(value) + "\"";
}

std::string human_duration(std::chrono::nanoseconds d) {
  using std::to_string;
  const int64_t ns = d.count();
  const int64_t seconds = ns / 1000000000;  // truncates toward zero, as int(d.Seconds()) does
  if (seconds < -1) {
    return "<invalid>";
  }
  if (seconds < 0) {
    return "0s";
  }
  if (seconds < 60 * 2) {
    return to_string(seconds) + "s";
  }
  const int64_t minutes = seconds / 60;
  if (minutes < 10) {
    const int64_t s = seconds % 60;
    return s == 0 ? to_string(minutes) + "m" : to_string(minutes) + "m" + to_string(s) + "s";
  }
  if (minutes < 60 * 3) {
    return to_string(minutes) + "m";
  }
  const int64_t hours = seconds / 3600;
  if (hours < 8) {
    const int64_t m = minutes % 60;
    return m == 0 ? to_string(hours) + "h" : to_string(hours) + "h" + to_string(m) + "m";
  }
  if (hours < 48) {
    return to_string(hours) + "h";
  }
  if (hours < 24 * 8) {
    const int64_t h = hours % 24;
    return h == 0 ? to_string(hours / 24) + "d" : to_string(hours / 24) + "d" + to_string(h) + "h";
  }
  if (hours < 24 * 365 * 2) {
    return to_string(hours / 24) + "d";
  }
  if (hours < 24 * 365 * 8) {
    const int64_t dy = (hours / 24) % 365;
    return dy == 0 ? to_string(hours / 24 / 365) + "y"
                   : to_string(hours / 24 / 365) + "y" + to_string(dy) + "d";
  }
  return to_string(hours / 24 / 365) + "y";
}

nlohmann::json table_cells(const Resource& resource, const nlohmann::json& object,
                           std::chrono::system_clock::time_point now) {
  const Context c{instant_of(now), resource.version};
  return cells_for(resource, columns_of(resource), object, c);
}

nlohmann::json to_table(const Resource& resource, const std::vector<nlohmann::json>& objects,
                        const TableOptions& options) {
  std::vector<const json*> ordered;
  ordered.reserve(objects.size());
  for (const auto& o : objects) {
    ordered.push_back(&o);
  }
  if (resource.group == "flowcontrol.apiserver.k8s.io" && resource.kind == "FlowSchema") {
    // printFlowSchemaList sorts by matchingPrecedence, then name.
    std::stable_sort(ordered.begin(), ordered.end(), [](const json* a, const json* b) {
      const int64_t pa = integer(at(*a, "spec", "matchingPrecedence"), 1000);
      const int64_t pb = integer(at(*b, "spec", "matchingPrecedence"), 1000);
      if (pa != pb) {
        return pa < pb;
      }
      return name_of(*a) < name_of(*b);
    });
  }
  return build_table(resource, ordered, options, options.resource_version, options.continue_token,
                     options.remaining_item_count);
}

nlohmann::json to_table_for_object(const Resource& resource, const nlohmann::json& object,
                                   const TableOptions& options) {
  return build_table(resource, {&object}, options, str(at(object, "metadata", "resourceVersion")),
                     "", std::nullopt);
}

}  // namespace apiserver::registry
