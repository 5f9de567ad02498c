// The API server's own kinds: flow control (FlowSchemas, PriorityLevelConfigurations),
// StorageVersions, StorageVersionMigrations and APIServices; printers.
#include "registry/kinds/kinds.h"

#include <string>
#include <vector>

#include "registry/go_text.h"
#include "registry/print_cells.h"
#include "registry/table.h"

namespace apiserver::registry::kinds {

namespace {

namespace print {
using namespace cells;

json print_flow_schema(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  const json& dm = at(spec, "distinguisherMethod");
  std::string missing = "?";
  const json& dangling = condition(at(obj, "status", "conditions"), "Dangling");
  if (dangling.is_object()) {
    missing = str(at(dangling, "status"));
  }
  return json::array({name_of(obj), str(at(spec, "priorityLevelConfiguration", "name")),
                      integer(at(spec, "matchingPrecedence"), 1000),
                      dm.is_object() ? str(at(dm, "type")) : "<none>", age(obj, c), missing});
}

json print_priority_level(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  json shares = "<none>";
  json queues = "<none>";
  json hand_size = "<none>";
  json queue_length = "<none>";
  if (const json& limited = at(spec, "limited"); limited.is_object()) {
    // Absent values read as flowcontrol/v1's defaults, which upstream applies on decode.
    shares = integer(at(limited, "nominalConcurrencyShares"), 30);
    if (const json& q = at(limited, "limitResponse", "queuing"); q.is_object()) {
      queues = integer(at(q, "queues"), 64);
      hand_size = integer(at(q, "handSize"), 8);
      queue_length = integer(at(q, "queueLengthLimit"), 50);
    }
  }
  return json::array(
      {name_of(obj), str(at(spec, "type")), shares, queues, hand_size, queue_length, age(obj, c)});
}

json print_storage_version(const json& obj, const Context& c) {
  const json& status = at(obj, "status");
  const json& common = at(status, "commonEncodingVersion");
  std::vector<std::string> versions;
  for (const auto& sv : arr(at(status, "storageVersions"))) {
    versions.push_back(str(at(sv, "apiServerID")) + "=" + str(at(sv, "encodingVersion")));
  }
  return json::array({name_of(obj), common.is_string() ? str(common) : "<unset>",
                      list_with_more(versions), age(obj, c)});
}

json print_api_service(const json& obj, const Context& c) {
  const json& svc = at(obj, "spec", "service");
  std::string service = "Local";
  if (svc.is_object()) {
    service = str(at(svc, "namespace")) + "/" + str(at(svc, "name"));
  }
  std::string available = "Unknown";
  const json& cond = condition(at(obj, "status", "conditions"), "Available");
  if (cond.is_object()) {
    const std::string status = str(at(cond, "status"));
    const std::string reason = str(at(cond, "reason"));
    available = (status == "True" || reason.empty()) ? status : status + " (" + reason + ")";
  }
  return json::array({name_of(obj), service, available, age(obj, c)});
}

}  // namespace print

}  // namespace

void add_control_plane(Strategies& s) {
  s.push_back({.group = "flowcontrol.apiserver.k8s.io",
               .kind = "FlowSchema",
               .print = print::print_flow_schema});
  s.push_back({.group = "flowcontrol.apiserver.k8s.io",
               .kind = "PriorityLevelConfiguration",
               .print = print::print_priority_level});
  s.push_back({.group = "internal.apiserver.k8s.io",
               .kind = "StorageVersion",
               .print = print::print_storage_version});
  s.push_back({.group = "storagemigration.k8s.io",
               .kind = "StorageVersionMigration",
               .print = [](const json& obj, const cells::Context&) {
                 using namespace cells;
                 const json& r = at(obj, "spec", "resource");
                 return json::array({name_of(obj), str(at(r, "resource")) + "." +
                                                       str(at(r, "version")) + "." +
                                                       str(at(r, "group"))});
               }});
  s.push_back(
      {.group = "apiregistration.k8s.io", .kind = "APIService", .print = print::print_api_service});
}

}  // namespace apiserver::registry::kinds
