// Jobs and CronJobs: defaults (the generated selector and labels), validation and printers.
#include "registry/kinds/kinds.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/cron_schedule.h"
#include "common/time_zone.h"
#include "registry/defaulting_fields.h"
#include "registry/go_text.h"
#include "registry/kinds/pod_spec.h"
#include "registry/print_cells.h"
#include "registry/table.h"
#include "registry/validation_rules.h"

namespace apiserver::registry::kinds {

namespace {

namespace validate {
using namespace rules;

void validate_job_spec(const json& spec, const std::string& path, Errors& out) {
  validate_nonnegative(spec, "parallelism", path + ".parallelism", out);
  validate_nonnegative(spec, "completions", path + ".completions", out);
  validate_nonnegative(spec, "backoffLimit", path + ".backoffLimit", out);
  const json& selector = get(spec, "selector");
  const json& tmpl = get(spec, "template");
  // The server generates the selector (and matching template labels) unless manualSelector is
  // set, so an absent selector is only reported for manual selectors.
  const json& manual = get(spec, "manualSelector");
  if (selector.is_null()) {
    if (manual.is_boolean() && manual.get<bool>()) {
      out.push_back(required_value(path + ".selector", ""));
    }
  } else {
    validate_label_selector(selector, path + ".selector", out);
    const json& labels = get(get(tmpl, "metadata"), "labels");
    if (!selector_is_empty(selector) && !selector_matches(selector, labels)) {
      out.push_back(invalid_rendered(path + ".template.metadata.labels", go_string_map(labels),
                                     kSelectorMismatch));
    }
  }
  validate_pod_template(tmpl, path + ".template", out);
  const std::string restart = str(get(tmpl, "spec"), "restartPolicy");
  if (restart != "OnFailure" && restart != "Never") {
    out.push_back(not_supported(path + ".template.spec.restartPolicy", go_quote(restart),
                                {"OnFailure", "Never"}));
  }
}

void validate_job_update(const json& obj, const json& old, Errors& out) {
  const json& spec = get(obj, "spec");
  const json& old_spec = get(old, "spec");
  if (!get(old_spec, "selector").is_null() && get(spec, "selector") != get(old_spec, "selector")) {
    out.push_back(
        invalid_rendered("spec.selector", go_label_selector(get(spec, "selector")), kImmutable));
  }
  const json& completions = get(spec, "completions");
  if (completions != get(old_spec, "completions")) {
    // Elastic indexed jobs may scale completions together with parallelism.
    const bool elastic = str(spec, "completionMode") == "Indexed" &&
                         completions == get(spec, "parallelism") &&
                         get(old_spec, "completions") == get(old_spec, "parallelism");
    if (!elastic) {
      out.push_back(invalid_rendered(
          "spec.completions", completions.is_null() ? "null" : completions.dump(), kImmutable));
    }
  }
  const json& suspended = get(spec, "suspend");
  const bool suspend = suspended.is_boolean() && suspended.get<bool>();
  if (!suspend && get(spec, "template") != get(old_spec, "template")) {
    // Upstream prints the whole internal PodTemplateSpec with %#v; abbreviated here.
    out.push_back(invalid_rendered("spec.template", "core.PodTemplateSpec{...}", kImmutable));
  }
}

// spec.timeZone as kube-apiserver's validateTimeZone checks it: IANA's naming rules (with the
// digits and '+' of legacy names tolerated: components of 1 to 14 of [A-Za-z0-9._+-], none "." or
// "..", none starting with '-'), not "Local" in any case, and a zone time.LoadLocation finds.
void validate_time_zone(const std::string& zone, Errors& out) {
  const std::string path = "spec.timeZone";
  if (zone.empty()) {
    out.push_back(invalid_value(path, zone, "timeZone must be nil or non-empty string"));
    return;
  }
  size_t start = 0;
  while (start <= zone.size()) {
    const size_t end = std::min(zone.find('/', start), zone.size());
    const std::string_view part = std::string_view(zone).substr(start, end - start);
    bool named =
        !part.empty() && part.size() <= 14 && part != "." && part != ".." && part.front() != '-';
    for (char c : part) {
      named = named && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' || c == '+');
    }
    if (!named) {
      out.push_back(invalid_value(path, zone, "unknown time zone " + zone));
      return;
    }
    start = end + 1;
  }
  std::string lower = zone;
  for (char& c : lower) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (lower == "local") {
    out.push_back(invalid_value(
        path, zone,
        "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"));
  }
  if (auto loaded = common::TimeZone::load(zone); !loaded) {
    out.push_back(invalid_value(path, zone, loaded.error()));
  }
}

// In kube-apiserver's order: the spec's fields, then the name's length (Jobs are named
// <cronjob>-<minutes since the epoch>, at most 63 characters).
void validate_cron_job(const json& obj, Errors& out) {
  const json& spec = get(obj, "spec");
  const std::string schedule = str(spec, "schedule");
  if (schedule.empty()) {
    out.push_back(required_value("spec.schedule", ""));
  } else {
    if (auto parsed = common::parse_cron_schedule(schedule); !parsed) {
      out.push_back(invalid_value("spec.schedule", schedule, parsed.error()));
    }
    if (schedule.find("TZ") != std::string::npos) {
      out.push_back(invalid_value("spec.schedule", schedule,
                                  "cannot use TZ or CRON_TZ in schedule, use timeZone field "
                                  "instead"));
    }
  }
  validate_nonnegative(spec, "startingDeadlineSeconds", "spec.startingDeadlineSeconds", out);
  if (const json& zone = get(spec, "timeZone"); zone.is_string()) {
    validate_time_zone(zone.get<std::string>(), out);
  }
  const std::string policy = str(spec, "concurrencyPolicy");
  if (policy.empty()) {
    out.push_back(required_value("spec.concurrencyPolicy", ""));
  } else if (policy != "Allow" && policy != "Forbid" && policy != "Replace") {
    out.push_back(
        not_supported("spec.concurrencyPolicy", go_quote(policy), {"Allow", "Forbid", "Replace"}));
  }
  validate_job_spec(get(get(spec, "jobTemplate"), "spec"), "spec.jobTemplate.spec", out);
  validate_nonnegative(spec, "successfulJobsHistoryLimit", "spec.successfulJobsHistoryLimit", out);
  validate_nonnegative(spec, "failedJobsHistoryLimit", "spec.failedJobsHistoryLimit", out);
  const std::string name = str(get(obj, "metadata"), "name");
  if (name.size() > 52) {
    out.push_back(invalid_value("metadata.name", name, "must be no more than 52 characters"));
  }
}

}  // namespace validate

namespace print {
using namespace cells;

json print_job(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  const json& status = at(obj, "status");
  const int64_t succeeded = integer(at(status, "succeeded"));
  std::string completions;
  if (present(at(spec, "completions"))) {
    completions = ratio(succeeded, integer(at(spec, "completions")));
  } else if (const int64_t parallelism = integer(at(spec, "parallelism"), 1); parallelism > 1) {
    completions = int_text(succeeded) + "/1 of " + int_text(parallelism);
  } else {
    completions = int_text(succeeded) + "/1";
  }
  std::string duration;
  if (present(at(status, "startTime"))) {
    const Instant start = time_of(at(status, "startTime"));
    const Instant end =
        present(at(status, "completionTime")) ? time_of(at(status, "completionTime")) : c.now;
    duration = human_duration(sub(end, start));
  }
  // hasJobCondition: only the first condition of each type counts.
  const auto has = [&](std::string_view type) {
    return str(at(condition(at(status, "conditions"), type), "status")) == "True";
  };
  std::string state;
  if (has("Complete")) {
    state = "Complete";
  } else if (has("Failed")) {
    state = "Failed";
  } else if (present(at(obj, "metadata", "deletionTimestamp"))) {
    state = "Terminating";
  } else if (has("Suspended")) {
    state = "Suspended";
  } else if (has("FailureTarget")) {
    state = "FailureTarget";
  } else {
    state = "Running";
  }
  auto [names, images] = container_cells(at(spec, "template", "spec"));
  return json::array({name_of(obj), state, completions, duration, age(obj, c), names, images,
                      format_label_selector(at(spec, "selector"))});
}

// printBoolPtr: the cell is the text "True" / "False", "<unset>" for nil.
std::string bool_ptr_text(const json& j) {
  if (!j.is_boolean()) {
    return "<unset>";
  }
  return j.get<bool>() ? "True" : "False";
}

json print_cron_job(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  const json& last = at(obj, "status", "lastScheduleTime");
  const json& job_spec = at(spec, "jobTemplate", "spec");
  auto [names, images] = container_cells(at(job_spec, "template", "spec"));
  const json& tz = at(spec, "timeZone");
  return json::array({name_of(obj), str(at(spec, "schedule")), tz.is_string() ? str(tz) : "<none>",
                      bool_ptr_text(at(spec, "suspend")),
                      static_cast<int64_t>(arr(at(obj, "status", "active")).size()),
                      present(last) ? since(last, c) : "<none>", age(obj, c), names, images,
                      format_label_selector(at(job_spec, "selector"))});
}

}  // namespace print

namespace defaulting {
using namespace fields;

void default_job_spec_template(json& spec) {
  if (json* tmpl = object_at(spec, "template")) {
    default_pod_template(*tmpl);
  }
}

void copy_template_labels_to_job(json& job, json& spec) {
  json* tmpl = existing_object(spec, "template");
  json* tmeta = tmpl ? existing_object(*tmpl, "metadata") : nullptr;
  if (tmeta == nullptr || !tmeta->contains("labels") || !(*tmeta)["labels"].is_object()) {
    return;
  }
  if (json* meta = object_at(job, "metadata"); meta != nullptr && empty_map(*meta, "labels")) {
    (*meta)["labels"] = (*tmeta)["labels"];
  }
}

void default_job(json& job, const DefaultingContext& ctx) {
  json* spec = object_at(job, "spec");
  if (spec == nullptr) {
    return;
  }
  if (unset(*spec, "completions") && unset(*spec, "parallelism")) {
    (*spec)["completions"] = 1;
    (*spec)["parallelism"] = 1;
  }
  default_value(*spec, "parallelism", 1);
  if (unset(*spec, "backoffLimit")) {
    (*spec)["backoffLimit"] = unset(*spec, "backoffLimitPerIndex") ? 6 : 2147483647;
  }
  copy_template_labels_to_job(job, *spec);
  default_value(*spec, "completionMode", "NonIndexed");
  default_value(*spec, "suspend", false);
  if (json* pfp = existing_object(*spec, "podFailurePolicy")) {
    for_each_object(*pfp, "rules", [](json& rule) {
      for_each_object(rule, "onPodConditions",
                      [](json& pattern) { default_string(pattern, "status", "True"); });
    });
  }
  if (unset(*spec, "podReplacementPolicy")) {
    (*spec)["podReplacementPolicy"] =
        unset(*spec, "podFailurePolicy") ? "TerminatingOrFailed" : "Failed";
  }
  default_value(*spec, "manualSelector", false);
  default_job_spec_template(*spec);

  if (ctx.phase == DefaultingPhase::Create) {
    auto manual_it = spec->find("manualSelector");
    bool manual = manual_it != spec->end() && manual_it->is_boolean() && manual_it->get<bool>();
    json* meta = existing_object(job, "metadata");
    if (!manual && meta != nullptr) {
      std::string name = string_at(*meta, "name");
      std::string uid = string_at(*meta, "uid");
      json* tmpl = object_at(*spec, "template");
      json* tmeta = tmpl ? object_at(*tmpl, "metadata") : nullptr;
      json* labels = tmeta ? object_at(*tmeta, "labels") : nullptr;
      if (labels != nullptr) {
        for (const char* key : {"job-name", "batch.kubernetes.io/job-name"}) {
          if (!labels->contains(key)) {
            (*labels)[key] = name;
          }
        }
        for (const char* key : {"controller-uid", "batch.kubernetes.io/controller-uid"}) {
          if (!labels->contains(key)) {
            (*labels)[key] = uid;
          }
        }
      }
      json* selector = object_at(*spec, "selector");
      json* match = selector ? object_at(*selector, "matchLabels") : nullptr;
      if (match != nullptr && !match->contains("batch.kubernetes.io/controller-uid")) {
        (*match)["batch.kubernetes.io/controller-uid"] = uid;
      }
    }
    // Decoding the stored object re-runs SetDefaults_Job, so the response already carries
    // the generated template labels as metadata.labels when the Job had none.
    copy_template_labels_to_job(job, *spec);
  }
}

void default_cron_job(json& cj) {
  json* spec = object_at(cj, "spec");
  if (spec == nullptr) {
    return;
  }
  default_string(*spec, "concurrencyPolicy", "Allow");
  default_value(*spec, "suspend", false);
  default_value(*spec, "successfulJobsHistoryLimit", 3);
  default_value(*spec, "failedJobsHistoryLimit", 1);
  if (json* jt = object_at(*spec, "jobTemplate")) {
    if (json* meta = object_at(*jt, "metadata")) {
      if (meta->find("creationTimestamp") == meta->end()) {
        (*meta)["creationTimestamp"] = nullptr;
      }
    }
    if (json* jspec = object_at(*jt, "spec")) {
      if (json* pfp = existing_object(*jspec, "podFailurePolicy")) {
        for_each_object(*pfp, "rules", [](json& rule) {
          for_each_object(rule, "onPodConditions",
                          [](json& pattern) { default_string(pattern, "status", "True"); });
        });
      }
      default_job_spec_template(*jspec);
    }
  }
}

}  // namespace defaulting

}  // namespace

void add_batch(Strategies& s) {
  s.push_back(
      {.group = "batch",
       .kind = "Job",
       .defaults =
           [](json& o, const DefaultingContext& c) {
             defaulting::default_job(o, c);
             fields::ensure_status(o, c);
           },
       .validate = [](const json& o,
                      Errors& e) { validate::validate_job_spec(rules::get(o, "spec"), "spec", e); },
       .validate_update = validate::validate_job_update,
       .print = print::print_job,
       .gc_policy = GcPolicy::OrphanDependents,
       .default_gc_warning = "child pods are preserved by default when jobs are deleted; set "
                             "propagationPolicy=Background to remove them or set "
                             "propagationPolicy=Orphan to suppress this warning"});
  s.push_back({.group = "batch",
               .kind = "CronJob",
               .defaults = defaults_then_status<defaulting::default_cron_job>,
               .validate = validate::validate_cron_job,
               .print = print::print_cron_job});
}

}  // namespace apiserver::registry::kinds
