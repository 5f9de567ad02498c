// resource.k8s.io (dynamic resource allocation): DeviceClasses, ResourceClaims, their
// templates and ResourceSlices; printers.
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

json print_resource_claim(const json& obj, const Context& c) {
  std::vector<std::string> states;
  const bool deleted = present(at(obj, "metadata", "deletionTimestamp"));
  if (deleted) {
    states.push_back("deleted");
  }
  if (!at(obj, "status", "allocation").is_object()) {
    if (!deleted) {
      states.push_back("pending");
    }
  } else {
    states.push_back("allocated");
    if (!arr(at(obj, "status", "reservedFor")).empty()) {
      states.push_back("reserved");
    }
  }
  return json::array({name_of(obj), join(states, ","), age(obj, c)});
}

json print_resource_slice(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  return json::array({name_of(obj), str(at(spec, "nodeName")), str(at(spec, "driver")),
                      str(at(spec, "pool", "name")), age(obj, c)});
}

}  // namespace print

}  // namespace

void add_dynamic_resources(Strategies& s) {
  s.push_back({.group = "resource.k8s.io", .kind = "DeviceClass", .print = cells::name_age});
  s.push_back(
      {.group = "resource.k8s.io", .kind = "ResourceClaimTemplate", .print = cells::name_age});
  s.push_back(
      {.group = "resource.k8s.io", .kind = "ResourceClaim", .print = print::print_resource_claim});
  s.push_back(
      {.group = "resource.k8s.io", .kind = "ResourceSlice", .print = print::print_resource_slice});
}

}  // namespace apiserver::registry::kinds
