// Server-side printing: the meta.k8s.io/v1 Table that kubectl asks for with
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`. Pure functions over stored objects
// (JSON of the served version); no I/O, no locks, no clock (the caller passes `now`).
//
// The columns come from the Resource row (registry facts); the cells follow kube-apiserver
// v1.32's printers (pkg/printers/internalversion) for every built-in kind that has one, and the
// default Name / Created At table for the rest. Like upstream, every row carries every cell,
// priority-1 ("-o wide") columns included; kubectl hides those unless asked.
//
// Worked example: a list of one running pod created 5m ago becomes
//   {"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"42"},
//    "columnDefinitions":[{"name":"Name","type":"string","format":"name",...},...],
//    "rows":[{"cells":["web-0","1/1","Running","0","5m","10.0.0.7","node-1","<none>","<none>"],
//             "object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1",
//                       "metadata":{...the pod's metadata...}}}]}
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/registry.h"
#include "common/result.h"

namespace apiserver::registry {

// The `includeObject` query parameter of a Table request.
enum class IncludeObject {
  None,      // rows[].object is null
  Metadata,  // rows[].object is a PartialObjectMetadata (the default)
  Object,    // rows[].object is the whole object
};

// Parses `includeObject`: "" and "Metadata" → Metadata, "None", "Object". Anything else fails
// with kube-apiserver's 400 BadRequest text: `unrecognized includeObject value: "<value>"`.
common::Result<IncludeObject> parse_include_object(std::string_view value);

struct TableOptions {
  IncludeObject include = IncludeObject::Metadata;
  // The instant ages are measured from (AGE, LAST SEEN, job durations, restart times).
  std::chrono::system_clock::time_point now;
  // Copied into the Table's metadata; empty strings and nullopt are left out.
  std::string resource_version;
  std::string continue_token;
  std::optional<int64_t> remaining_item_count;
  // TableOptions.noHeaders (meta.k8s.io/v1): columnDefinitions is null instead of the list.
  // kubectl sets it for the later pages of a chunked list and for watch events after the first.
  bool no_headers = false;
};

// The Table for a list response: one row per object, in the given order (FlowSchemas are sorted
// by matchingPrecedence then name, as upstream's list printer does). `objects` are the stored
// objects of `resource` (the served version's JSON). Malformed fields never throw: a missing or
// mistyped field reads as absent, as a zero-valued Go struct would.
nlohmann::json to_table(const Resource& resource, const std::vector<nlohmann::json>& objects,
                        const TableOptions& options);

// The Table for a get response: a list of one whose metadata carries the object's own
// metadata.resourceVersion (options.resource_version and the paging fields are ignored).
nlohmann::json to_table_for_object(const Resource& resource, const nlohmann::json& object,
                                   const TableOptions& options);

// The cells of one object's row, in the order of resource.table_columns (exposed for tests and
// for watch events, which carry one row each).
nlohmann::json table_cells(const Resource& resource, const nlohmann::json& object,
                           std::chrono::system_clock::time_point now);

// apimachinery's duration.HumanDuration: "<invalid>" below -1s, then "0s", "59s", "119s",
// "2m", "2m5s", "9m59s", "10m", "179m", "3h", "3h5m", "7h59m", "8h", "47h", "2d", "2d5h",
// "7d23h", "8d", "729d", "2y", "2y3d", "7y364d", "8y". Units truncate; 1y = 365d.
std::string human_duration(std::chrono::nanoseconds d);

}  // namespace apiserver::registry
