#include "workloads/job_rules.h"

#include <algorithm>
#include <charconv>

#include "client/objects.h"
#include "workloads/workload_pods.h"

namespace cluster {
namespace {

constexpr const char* kIndexKey = "batch.kubernetes.io/job-completion-index";
constexpr const char* kTracking = "batch.kubernetes.io/job-tracking";
// A generated name's random suffix is 5 characters of at most 63.
constexpr size_t kMostGenerateName = 58;

std::optional<int> number(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

bool in_values(const json* values, int64_t code) {
  return values != nullptr && values->is_array() &&
         std::any_of(values->begin(), values->end(), [&](const json& v) {
           return v.is_number_integer() && v.get<int64_t>() == code;
         });
}

}  // namespace

std::set<int> parse_index_set(const std::string& text) {
  std::set<int> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos)
      end = text.size();
    std::string_view part = std::string_view(text).substr(start, end - start);
    start = end + 1;
    const size_t dash = part.find('-');
    auto first = number(part.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : number(part.substr(dash + 1));
    if (first && last && *first <= *last && *last - *first < 100000) {
      for (int i = *first; i <= *last; ++i)
        out.insert(i);
    }
  }
  return out;
}

std::string format_index_set(const std::set<int>& indexes) {
  std::string out;
  auto it = indexes.begin();
  while (it != indexes.end()) {
    const int first = *it;
    int last = first;
    for (++it; it != indexes.end() && *it == last + 1; ++it)
      last = *it;
    if (!out.empty())
      out += ',';
    out += std::to_string(first);
    if (last != first)
      out += "-" + std::to_string(last);
  }
  return out;
}

int completion_index(const json& pod) {
  return number(string_at(pod, {"metadata", "annotations", kIndexKey})).value_or(-1);
}

FailureVerdict match_pod_failure_policy(const json& job, const json& pod) {
  const json* rules = at(job, {"spec", "podFailurePolicy", "rules"});
  if (rules == nullptr || !rules->is_array()) {
    return {};
  }
  for (size_t i = 0; i < rules->size(); ++i) {
    const json& rule = (*rules)[i];
    const std::string action = string_at(rule, {"action"});
    if (const json* codes = at(rule, {"onExitCodes"})) {
      const std::string container = string_at(*codes, {"containerName"});
      const bool in = string_at(*codes, {"operator"}) == "In";
      const json* statuses = at(pod, {"status", "containerStatuses"});
      if (statuses == nullptr || !statuses->is_array())
        continue;
      for (const json& s : *statuses) {
        const json* exit = at(s, {"state", "terminated", "exitCode"});
        if (exit == nullptr || !exit->is_number_integer() || exit->get<int64_t>() == 0)
          continue;
        const std::string name = string_at(s, {"name"});
        if (!container.empty() && container != name)
          continue;
        const int64_t code = exit->get<int64_t>();
        if (in_values(at(*codes, {"values"}), code) == in) {
          return {action, "Container " + name + " for pod " + namespace_of(pod) + "/" +
                              name_of(pod) + " failed with exit code " + std::to_string(code) +
                              " matching " + action + " rule at index " + std::to_string(i)};
        }
      }
    }
    if (const json* conditions = at(rule, {"onPodConditions"});
        conditions && conditions->is_array()) {
      for (const json& wanted : *conditions) {
        const json* c = condition(pod, string_at(wanted, {"type"}));
        std::string status = string_at(wanted, {"status"});
        if (status.empty())
          status = "True";
        if (c != nullptr && string_at(*c, {"status"}) == status) {
          return {action, "Pod " + namespace_of(pod) + "/" + name_of(pod) + " has condition " +
                              string_at(wanted, {"type"}) + " matching " + action +
                              " rule at index " + std::to_string(i)};
        }
      }
    }
  }
  return {};
}

std::chrono::seconds failure_backoff(int64_t failures) {
  if (failures <= 0)
    return std::chrono::seconds(0);
  int64_t delay = 10;
  for (int64_t i = 1; i < failures && delay < 360; ++i)
    delay *= 2;
  return std::chrono::seconds(std::min<int64_t>(delay, 360));
}

bool has_tracking_finalizer(const json& pod) {
  const json* finalizers = at(pod, {"metadata", "finalizers"});
  return finalizers != nullptr && finalizers->is_array() &&
         std::find(finalizers->begin(), finalizers->end(), json(kTracking)) != finalizers->end();
}

bool tracking_finalizer_orphaned(const json& pod, const json* job) {
  if (!has_tracking_finalizer(pod)) {
    return false;
  }
  const json* ref = controller_ref(pod);
  if (ref == nullptr) {
    return true;
  }
  if (string_at(*ref, {"kind"}) != "Job" || string_at(*ref, {"apiVersion"}) != "batch/v1") {
    return false;
  }
  if (job == nullptr || uid_of(*job) != string_at(*ref, {"uid"})) {
    return true;
  }
  return condition_true(*job, "Complete") || condition_true(*job, "Failed");
}

bool pod_failed_for_job(const json& job, const json& pod) {
  const std::string phase = string_at(pod, {"status", "phase"});
  if (phase == "Failed") {
    return true;
  }
  const bool only_failed = string_at(job, {"spec", "podReplacementPolicy"}) == "Failed" ||
                           at(job, {"spec", "podFailurePolicy"}) != nullptr;
  return !only_failed && being_deleted(pod) && phase != "Succeeded";
}

bool restarts_past_backoff_limit(const json& job, const std::vector<const json*>& pods) {
  if (string_at(job, {"spec", "template", "spec", "restartPolicy"}) != "OnFailure") {
    return false;
  }
  int64_t restarts = 0;
  for (const json* pod : pods) {
    const std::string phase = string_at(*pod, {"status", "phase"});
    if (phase != "Pending" && phase != "Running") {
      continue;
    }
    for (const char* field : {"initContainerStatuses", "containerStatuses"}) {
      const json* statuses = at(*pod, {"status", field});
      if (statuses == nullptr || !statuses->is_array()) {
        continue;
      }
      for (const json& s : *statuses) {
        restarts += std::max<int64_t>(int_at(s, {"restartCount"}, 0), 0);
      }
    }
  }
  const int64_t limit = int_at(job, {"spec", "backoffLimit"}, 6);
  return limit == 0 ? restarts > 0 : restarts >= limit;
}

std::optional<JobEnd> settled_end(const json& job) {
  for (const char* type : {"SuccessCriteriaMet", "FailureTarget"}) {
    if (const json* c = condition(job, type); c != nullptr && string_at(*c, {"status"}) == "True") {
      return JobEnd{std::string(type) == "FailureTarget", string_at(*c, {"reason"}),
                    string_at(*c, {"message"})};
    }
  }
  return std::nullopt;
}

void add_interim_condition(json& status, const JobEnd& end, const std::string& now) {
  json& conditions = status["conditions"];
  if (!conditions.is_array()) {
    conditions = json::array();
  }
  const char* interim = end.failed ? "FailureTarget" : "SuccessCriteriaMet";
  const json* existing = condition_in(conditions, interim);
  if (existing == nullptr || string_at(*existing, {"status"}) != "True") {
    set_condition(conditions, interim, "True", end.reason, end.message, now);
  }
}

bool record_end(json& status, const JobEnd& end, const std::string& now) {
  add_interim_condition(status, end, now);
  json& conditions = status["conditions"];
  const json* uncounted = at(status, {"uncountedTerminatedPods"});
  const bool all_counted = uncounted == nullptr || !uncounted->is_object() ||
                           std::all_of(uncounted->begin(), uncounted->end(),
                                       [](const json& list) { return list.empty(); });
  if (!all_counted || int_at(status, {"terminating"}, 0) > 0) {
    return false;
  }
  set_condition(conditions, end.failed ? "Failed" : "Complete", "True", end.reason, end.message,
                now);
  if (!end.failed) {
    status["completionTime"] = now;
  }
  status["active"] = 0;
  status["ready"] = 0;
  return true;
}

json job_pod(const json& job, int index) {
  const json* tmpl = at(job, {"spec", "template"});
  json pod = pod_from_template(job, tmpl != nullptr ? *tmpl : json::object());
  json& metadata = pod["metadata"];
  json& finalizers = metadata["finalizers"];
  if (!finalizers.is_array()) {
    finalizers = json::array();
  }
  if (std::find(finalizers.begin(), finalizers.end(), json(kTracking)) == finalizers.end()) {
    finalizers.push_back(kTracking);
  }
  std::string prefix = name_of(job) + "-";
  if (index >= 0) {
    const std::string text = std::to_string(index);
    const std::string suffix = "-" + text + "-";
    prefix = name_of(job) + suffix;
    if (prefix.size() > kMostGenerateName) {
      prefix = prefix.substr(0, kMostGenerateName - suffix.size()) + suffix;
    }
    metadata["annotations"][kIndexKey] = text;
    metadata["labels"][kIndexKey] = text;
    json& spec = pod["spec"];
    spec["hostname"] = name_of(job) + "-" + text;
    const json variable = {
        {"name", "JOB_COMPLETION_INDEX"},
        {"valueFrom",
         {{"fieldRef",
           {{"fieldPath", std::string("metadata.annotations['") + kIndexKey + "']"}}}}}};
    for (const char* list : {"initContainers", "containers"}) {
      if (!spec.contains(list) || !spec[list].is_array()) {
        continue;
      }
      for (json& container : spec[list]) {
        if (!container.is_object()) {
          continue;
        }
        json& env = container["env"];
        if (!env.is_array()) {
          env = json::array();
        }
        const bool present = std::any_of(env.begin(), env.end(), [](const json& v) {
          return string_at(v, {"name"}) == "JOB_COMPLETION_INDEX";
        });
        if (!present) {
          env.push_back(variable);
        }
      }
    }
  }
  metadata["generateName"] = prefix;
  return pod;
}

}  // namespace cluster
