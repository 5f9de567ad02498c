#include "workloads/job_rules.h"

#include <algorithm>
#include <charconv>

#include "client/objects.h"

namespace cluster {
namespace {

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
  return number(string_at(pod,
                          {"metadata", "annotations", "batch.kubernetes.io/job-completion-index"}))
      .value_or(-1);
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

}  // namespace cluster
