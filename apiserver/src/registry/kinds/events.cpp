// Events, in both APIs (core v1 and events.k8s.io v1): one storage, the core form, as
// kube-apiserver keeps them. events.k8s.io/v1 renames some fields (pkg/apis/events/v1
// conversion): regarding is involvedObject, note is message, reportingController is
// reportingComponent, deprecatedSource / deprecatedFirstTimestamp / deprecatedLastTimestamp /
// deprecatedCount are source / firstTimestamp / lastTimestamp / count. Validation runs on the
// core form, with the stricter rules of a create or update through events.k8s.io/v1
// (pkg/apis/core/validation/events.go); both printers show the core form's columns.
#include "registry/kinds/kinds.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "registry/go_text.h"
#include "registry/name_scanners.h"
#include "registry/print_cells.h"
#include "registry/table.h"
#include "registry/validation_rules.h"

namespace apiserver::registry::kinds {

namespace {

namespace convert {

// {events.k8s.io/v1 name, core/v1 name}; every other field has the same name in both.
constexpr std::pair<const char*, const char*> kRenamed[] = {
    {"regarding", "involvedObject"},
    {"note", "message"},
    {"reportingController", "reportingComponent"},
    {"deprecatedSource", "source"},
    {"deprecatedFirstTimestamp", "firstTimestamp"},
    {"deprecatedLastTimestamp", "lastTimestamp"},
    {"deprecatedCount", "count"},
};

// The renamed fields moved to the other spelling. A field spelled the other version's way in the
// input has no place in the typed object upstream decodes, so it goes.
void rename(json& object, bool to_core) {
  std::vector<std::pair<const char*, json>> moved;
  for (const auto& [events_name, core_name] : kRenamed) {
    const char* from = to_core ? events_name : core_name;
    const char* to = to_core ? core_name : events_name;
    if (auto it = object.find(from); it != object.end()) {
      moved.emplace_back(to, std::move(*it));
      object.erase(it);
    }
    object.erase(to);
  }
  for (auto& [name, value] : moved) {
    object[name] = std::move(value);
  }
  object["apiVersion"] = to_core ? "v1" : "events.k8s.io/v1";
  object["kind"] = "Event";
}

void to_core(json& object) {
  rename(object, true);
}

void to_events(json& object) {
  rename(object, false);
}

}  // namespace convert

namespace validate {
using namespace rules;

constexpr size_t kReportingInstanceLengthLimit = 128;
constexpr size_t kActionLengthLimit = 128;
constexpr size_t kReasonLengthLimit = 128;
constexpr size_t kNoteLengthLimit = 1024;

void limit(const json& obj, const char* field, size_t max, Errors& out) {
  if (str(obj, field).size() > max) {
    out.push_back(
        invalid_value(field, "", "can have at most " + std::to_string(max) + " characters"));
  }
}

// The legacy rules every Event passes, whichever API writes it.
void validate_event(const json& obj, Errors& out) {
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
    // The internal field is ReportingController, which core/v1 spells reportingComponent.
    const std::string controller = str(obj, "reportingComponent");
    if (controller.empty()) {
      out.push_back(required_value("reportingController", ""));
    }
    for (const auto& msg : label_key_problems(controller)) {
      out.push_back(invalid_value("reportingController", controller, msg));
    }
    if (str(obj, "reportingInstance").empty()) {
      out.push_back(required_value("reportingInstance", ""));
    }
    limit(obj, "reportingInstance", kReportingInstanceLengthLimit, out);
    if (str(obj, "action").empty()) {
      out.push_back(required_value("action", ""));
    }
    limit(obj, "action", kActionLengthLimit, out);
    if (str(obj, "reason").empty()) {
      out.push_back(required_value("reason", ""));
    }
    limit(obj, "reason", kReasonLengthLimit, out);
    limit(obj, "message", kNoteLengthLimit, out);
  }
  for (const auto& msg : name_problems(ns, NameRule::Dns1123Subdomain, false)) {
    out.push_back(invalid_value("namespace", ns, msg));
  }
}

void validate_series(const json& obj, Errors& out) {
  const json& series = get(obj, "series");
  if (series.is_null()) {
    return;
  }
  const json& count = get(series, "count");
  if (!count.is_number_integer() || count.get<int64_t>() < 2) {
    out.push_back(invalid_value("series.count", "", "should be at least 2"));
  }
  if (cells::is_zero(cells::time_of(get(series, "lastObservedTime")))) {
    out.push_back(required_value("series.lastObservedTime", ""));
  }
}

// A create through events.k8s.io/v1: the new API's fields are required, the deprecated ones
// must be unset.
void validate_events_api_create(const json& obj, Errors& out) {
  validate_series(obj, out);
  if (cells::is_zero(cells::time_of(get(obj, "eventTime")))) {
    out.push_back(required_value("eventTime", ""));
  }
  const std::string type = str(obj, "type");
  if (type != "Normal" && type != "Warning") {
    out.push_back(invalid_value("type", "", "has invalid value: " + type));
  }
  for (const char* deprecated : {"firstTimestamp", "lastTimestamp"}) {
    if (!cells::is_zero(cells::time_of(get(obj, deprecated)))) {
      out.push_back(invalid_value(deprecated, "", "needs to be unset"));
    }
  }
  if (cells::integer(get(obj, "count")) != 0) {
    out.push_back(invalid_value("count", "", "needs to be unset"));
  }
  const json& source = get(obj, "source");
  if (!str(source, "component").empty() || !str(source, "host").empty()) {
    out.push_back(invalid_value("source", "", "needs to be unset"));
  }
}

// Go's Time.String() of a stored timestamp, in UTC: "2024-01-01 00:00:00.5 +0000 UTC".
std::string go_time(const json& value) {
  const cells::Instant t = cells::time_of(value);
  std::string text = cells::format_rfc3339(cells::Instant{t.sec, 0});  // ...T15:04:05Z
  if (text.size() > 1 && text.back() == 'Z') {
    text.pop_back();
  }
  if (auto pos = text.find('T'); pos != std::string::npos) {
    text[pos] = ' ';
  }
  if (t.nsec > 0) {
    char fraction[24];
    std::snprintf(fraction, sizeof fraction, ".%09lld", static_cast<long long>(t.nsec));
    std::string f = fraction;
    while (f.back() == '0') {
      f.pop_back();
    }
    text += f;
  }
  return text + " +0000 UTC";
}

// %#v of a core.ObjectReference.
std::string go_reference(const json& ref) {
  std::string out = "core.ObjectReference{";
  const char* fields[][2] = {{"Kind", "kind"},
                             {"Namespace", "namespace"},
                             {"Name", "name"},
                             {"UID", "uid"},
                             {"APIVersion", "apiVersion"},
                             {"ResourceVersion", "resourceVersion"},
                             {"FieldPath", "fieldPath"}};
  bool first = true;
  for (const auto& [go_name, json_name] : fields) {
    out += std::string(first ? "" : ", ") + go_name + ":" + go_quote(str(ref, json_name));
    first = false;
  }
  return out + "}";
}

// An update through events.k8s.io/v1: only the series may change.
void validate_events_api_update(const json& obj, const json& old, Errors& out) {
  if (get(obj, "series") != get(old, "series")) {
    validate_series(obj, out);
  }
  auto immutable = [&](const char* field, const std::string& rendered) {
    out.push_back(invalid_rendered(field, rendered, kImmutable));
  };
  auto text_field = [&](const char* field, const char* shown_as) {
    if (str(obj, field) != str(old, field)) {
      immutable(shown_as, go_quote(str(obj, field)));
    }
  };
  auto time_field = [&](const char* field) {
    if (cells::time_of(get(obj, field)).sec != cells::time_of(get(old, field)).sec ||
        cells::time_of(get(obj, field)).nsec != cells::time_of(get(old, field)).nsec) {
      immutable(field, go_time(get(obj, field)));
    }
  };
  auto reference = [](const json& r) { return r.is_object() ? r : json::object(); };
  if (reference(get(obj, "involvedObject")) != reference(get(old, "involvedObject"))) {
    immutable("involvedObject", go_reference(get(obj, "involvedObject")));
  }
  text_field("reason", "reason");
  text_field("message", "message");
  const json& source = get(obj, "source");
  const json& old_source = get(old, "source");
  if (str(source, "component") != str(old_source, "component") ||
      str(source, "host") != str(old_source, "host")) {
    immutable("source", "core.EventSource{Component:" + go_quote(str(source, "component")) +
                            ", Host:" + go_quote(str(source, "host")) + "}");
  }
  time_field("firstTimestamp");
  time_field("lastTimestamp");
  if (cells::integer(get(obj, "count")) != cells::integer(get(old, "count"))) {
    immutable("count", std::to_string(cells::integer(get(obj, "count"))));
  }
  text_field("reason", "reason");  // upstream checks it twice
  text_field("type", "type");
  time_field("eventTime");
  text_field("action", "action");
  const json& related = get(obj, "related");
  if (reference(related) != reference(get(old, "related")) ||
      related.is_null() != get(old, "related").is_null()) {
    immutable("related", related.is_null() ? "null" : go_reference(related));
  }
  text_field("reportingComponent", "reportingController");
  text_field("reportingInstance", "reportingInstance");
}

}  // namespace validate

namespace print {
using namespace cells;

json print_core_event(const json& e, const Context& c) {
  const json& involved = at(e, "involvedObject");
  const Instant first = time_of(at(e, "firstTimestamp"));
  std::string first_text = is_zero(first) ? since(at(e, "eventTime"), c) : since(first, c);
  const Instant last = time_of(at(e, "lastTimestamp"));
  std::string last_text = is_zero(last) ? first_text : since(last, c);
  int64_t count = integer(at(e, "count"));
  if (const json& series = at(e, "series"); series.is_object()) {
    last_text = since(at(series, "lastObservedTime"), c);
    count = integer(at(series, "count"));
  } else if (count == 0) {
    count = 1;  // singleton events of the new API carry no count
  }
  const std::string kind = lower(str(at(involved, "kind")));
  const std::string involved_name = str(at(involved, "name"));
  const std::string target = involved_name.empty() ? kind : kind + "/" + involved_name;
  std::string component = str(at(e, "source", "component"));
  if (component.empty()) {
    component = str(at(e, "reportingComponent"));
  }
  std::string instance = str(at(e, "source", "host"));
  if (instance.empty()) {
    instance = str(at(e, "reportingInstance"));
  }
  const std::string source = instance.empty() ? component : component + ", " + instance;
  return json::array({last_text, str(at(e, "type")), str(at(e, "reason")), target,
                      str(at(involved, "fieldPath")), source, trim_space(str(at(e, "message"))),
                      first_text, count, name_of(e)});
}

json print_events_api_event(const json& obj, const Context& c) {
  json core = obj.is_object() ? obj : json::object();
  convert::to_core(core);
  return print_core_event(core, c);
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
  // Served from the core Events' storage, with its strategy's delete rules; its writes are
  // validated in the core form, with the metadata rules of a newer API.
  s.push_back({.group = "events.k8s.io",
               .kind = "Event",
               .validate = validate::validate_event,
               .validate_create = validate::validate_events_api_create,
               .validate_update = validate::validate_events_api_update,
               .print = print::print_events_api_event,
               .gc_policy = GcPolicy::Unsupported,
               .to_storage = convert::to_core,
               .from_storage = convert::to_events});
}

}  // namespace apiserver::registry::kinds
