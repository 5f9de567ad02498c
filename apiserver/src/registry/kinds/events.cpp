// Events, in both APIs (core v1 and events.k8s.io): the core Event's own metadata rules and the
// printers, which show both through one view.
#include "registry/kinds/kinds.h"

#include <cstdint>
#include <string>
#include <vector>

#include "registry/go_text.h"
#include "registry/name_scanners.h"
#include "registry/print_cells.h"
#include "registry/table.h"
#include "registry/validation_rules.h"

namespace apiserver::registry::kinds {

namespace {

namespace validate {
using namespace rules;

void validate_event(const json& obj, Errors& out) {
  // core/v1 Events take the legacy rules only (no object metadata checks).
  const std::string ns = str(get(obj, "metadata"), "namespace");
  const std::string involved = str(get(obj, "involvedObject"), "namespace");
  const bool has_event_time = present(obj, "eventTime");
  bool mismatch = false;
  if (!has_event_time) {
    mismatch = involved.empty() ? (!ns.empty() && ns != "default") : ns != involved;
  } else {
    mismatch = involved.empty() && ns != "default" && ns != "kube-system";
  }
  if (mismatch) {
    out.push_back(
        invalid_value("involvedObject.namespace", involved, "does not match event.namespace"));
  }
  if (has_event_time) {
    if (str(obj, "reportingComponent").empty()) {
      out.push_back(required_value("reportingController", ""));
    }
    if (str(obj, "reportingInstance").empty()) {
      out.push_back(required_value("reportingInstance", ""));
    }
    if (str(obj, "action").empty()) {
      out.push_back(required_value("action", ""));
    }
    if (str(obj, "reason").empty()) {
      out.push_back(required_value("reason", ""));
    }
  }
  for (const auto& msg : name_problems(ns, NameRule::Dns1123Subdomain, false)) {
    out.push_back(invalid_value("namespace", ns, msg));
  }
}

}  // namespace validate

namespace print {
using namespace cells;

// Event fields under their core/v1 names; events.k8s.io/v1 spells several of them differently.
struct EventView {
  json first_timestamp;
  json last_timestamp;
  json event_time;
  json series;
  int64_t count = 0;
  json involved;
  std::string component;
  std::string host;
  std::string message;
};

EventView core_event(const json& e) {
  EventView v;
  v.first_timestamp = at(e, "firstTimestamp");
  v.last_timestamp = at(e, "lastTimestamp");
  v.event_time = at(e, "eventTime");
  v.series = at(e, "series");
  v.count = integer(at(e, "count"));
  v.involved = at(e, "involvedObject");
  v.component = str(at(e, "source", "component"));
  v.host = str(at(e, "source", "host"));
  v.message = str(at(e, "message"));
  return v;
}

EventView events_api_event(const json& e) {
  EventView v;
  v.first_timestamp = at(e, "deprecatedFirstTimestamp");
  v.last_timestamp = at(e, "deprecatedLastTimestamp");
  v.event_time = at(e, "eventTime");
  v.series = at(e, "series");
  v.count = integer(at(e, "deprecatedCount"));
  v.involved = at(e, "regarding");
  v.component = str(at(e, "deprecatedSource", "component"));
  v.host = str(at(e, "deprecatedSource", "host"));
  v.message = str(at(e, "note"));
  return v;
}

json print_event_view(const json& obj, const EventView& v, const Context& c) {
  const Instant first = time_of(v.first_timestamp);
  std::string first_text = is_zero(first) ? since(v.event_time, c) : since(first, c);
  const Instant last = time_of(v.last_timestamp);
  std::string last_text = is_zero(last) ? first_text : since(last, c);
  int64_t count = v.count;
  if (v.series.is_object()) {
    last_text = since(at(v.series, "lastObservedTime"), c);
    count = integer(at(v.series, "count"));
  } else if (count == 0) {
    count = 1;  // singleton events of the new API carry no count
  }
  const std::string kind = lower(str(at(v.involved, "kind")));
  const std::string involved_name = str(at(v.involved, "name"));
  const std::string target = involved_name.empty() ? kind : kind + "/" + involved_name;
  const std::string component =
      v.component.empty() ? str(at(obj, "reportingController")) : v.component;
  const std::string instance = v.host.empty() ? str(at(obj, "reportingInstance")) : v.host;
  const std::string source = instance.empty() ? component : component + ", " + instance;
  return json::array({last_text, str(at(obj, "type")), str(at(obj, "reason")), target,
                      str(at(v.involved, "fieldPath")), source, trim_space(v.message), first_text,
                      count, name_of(obj)});
}

json print_core_event(const json& obj, const Context& c) {
  return print_event_view(obj, core_event(obj), c);
}

json print_events_api_event(const json& obj, const Context& c) {
  return print_event_view(obj, events_api_event(obj), c);
}

}  // namespace print

}  // namespace

void add_events(Strategies& s) {
  s.push_back({.group = "",
               .kind = "Event",
               .validate = validate::validate_event,
               .validate_update = nullptr,
               .print = print::print_core_event,
               .own_metadata_rules = true,
               .gc_policy = GcPolicy::Unsupported});
  // Served from the core Events' storage, with its strategy's delete rules.
  s.push_back({.group = "events.k8s.io",
               .kind = "Event",
               .print = print::print_events_api_event,
               .gc_policy = GcPolicy::Unsupported});
}

}  // namespace apiserver::registry::kinds
