#include "nodes/pod_lifecycle.h"

#include <charconv>
#include <cstdio>
#include <functional>

#include "client/objects.h"

namespace cluster {
namespace {

using Clock = std::chrono::system_clock;
using std::chrono::milliseconds;

constexpr const char* kRunSeconds = "kube-sandbox.io/run-seconds";
constexpr const char* kExitCode = "kube-sandbox.io/exit-code";

std::string hex_digest(const std::string& seed, size_t length) {
  std::string out;
  size_t round = 0;
  while (out.size() < length) {
    char part[17];
    std::snprintf(part, sizeof part, "%016zx",
                  std::hash<std::string>{}(seed + std::to_string(round++)));
    out += part;
  }
  out.resize(length);
  return out;
}

// "nginx" -> "docker.io/library/nginx:latest", as container runtimes report images.
std::string full_image(std::string image) {
  const size_t slash = image.find('/');
  const std::string first = slash == std::string::npos ? "" : image.substr(0, slash);
  if (slash == std::string::npos) {
    image = "docker.io/library/" + image;
  } else if (first.find('.') == std::string::npos && first.find(':') == std::string::npos &&
             first != "localhost") {
    image = "docker.io/" + image;
  }
  const size_t last_slash = image.rfind('/');
  if (image.find('@') == std::string::npos &&
      image.find(':', last_slash == std::string::npos ? 0 : last_slash) == std::string::npos) {
    image += ":latest";
  }
  return image;
}

std::string image_id(const std::string& image) {
  std::string repository = image.substr(0, image.find('@'));
  const size_t last_slash = repository.rfind('/');
  if (size_t colon = repository.find(':', last_slash == std::string::npos ? 0 : last_slash);
      colon != std::string::npos) {
    repository.resize(colon);
  }
  return repository + "@sha256:" + hex_digest(image, 64);
}

int64_t annotation_number(const json& pod, const char* name, int64_t fallback) {
  const std::string text = string_at(pod, {"metadata", "annotations", name});
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0 ||
      value > 1000000) {
    return fallback;
  }
  return value;
}

const json& containers(const json& pod) {
  static const json empty = json::array();
  const json* list = at(pod, {"spec", "containers"});
  return list != nullptr && list->is_array() ? *list : empty;
}

int64_t readiness_delay_seconds(const json& container) {
  if (const json* probe = at(container, {"readinessProbe"}); probe != nullptr) {
    return std::max<int64_t>(int_at(*probe, {"initialDelaySeconds"}, 0), 0);
  }
  return -1;  // no probe: ready as soon as it runs
}

json container_status(const json& container, const json& pod, const json& state, bool ready,
                      bool started, int64_t restarts, const json& last_state) {
  const std::string name = string_at(container, {"name"});
  const std::string image = full_image(string_at(container, {"image"}));
  json status = {{"name", name},
                 {"image", image},
                 {"imageID", started || state.contains("terminated") ? image_id(image) : ""},
                 {"ready", ready},
                 {"restartCount", restarts},
                 {"started", started},
                 {"state", state},
                 {"lastState", last_state}};
  if (state.contains("running") || state.contains("terminated")) {
    status["containerID"] =
        "containerd://" + hex_digest(uid_of(pod) + "/" + name + "/" + std::to_string(restarts), 64);
  }
  return status;
}

std::string names_of(const json& list) {
  std::string out;
  for (const json& c : list) {
    out += (out.empty() ? "" : " ") + string_at(c, {"name"});
  }
  return out;
}

json base_status(const json& pod, const std::string& phase, const std::string& host_ip,
                 const std::string& start_time) {
  json status = {{"phase", phase},
                 {"hostIP", host_ip},
                 {"hostIPs", json::array({{{"ip", host_ip}}})},
                 {"startTime", start_time}};
  if (const json* qos = at(pod, {"status", "qosClass"}); qos != nullptr) {
    status["qosClass"] = *qos;
  }
  status["conditions"] = at(pod, {"status", "conditions"}) != nullptr
                             ? *at(pod, {"status", "conditions"})
                             : json::array();
  return status;
}

}  // namespace

bool pod_terminal(const json& pod) {
  const std::string phase = string_at(pod, {"status", "phase"});
  return phase == "Succeeded" || phase == "Failed";
}

KubeletStep next_step(const json& pod, const std::string& pod_ip, const std::string& host_ip,
                      Clock::time_point now, const PodTiming& timing) {
  KubeletStep step;
  const std::string now_text = rfc3339(now);
  if (being_deleted(pod)) {
    // The containers get SIGTERM; the simulated ones stop after the stop delay, at most the grace.
    const auto deadline = parse_time(string_at(pod, {"metadata", "deletionTimestamp"}));
    const int64_t grace = int_at(pod, {"metadata", "deletionGracePeriodSeconds"}, 0);
    auto stopped = deadline
                       ? *deadline - std::chrono::seconds(grace) +
                             std::min<milliseconds>(timing.stop_delay, std::chrono::seconds(grace))
                       : now;
    if (now >= stopped || pod_terminal(pod)) {
      step.remove = true;
    } else {
      step.recheck = std::chrono::duration_cast<milliseconds>(stopped - now) + milliseconds(1);
    }
    return step;
  }
  if (pod_terminal(pod)) {
    return step;
  }
  const json& specs = containers(pod);
  const std::string start_text = string_at(pod, {"status", "startTime"});
  if (start_text.empty()) {
    json status = base_status(pod, "Pending", host_ip, now_text);
    json& conditions = status["conditions"];
    set_condition(conditions, "PodReadyToStartContainers", "False", "", "", now_text);
    set_condition(conditions, "Initialized", "True", "", "", now_text);
    set_condition(conditions, "Ready", "False", "ContainersNotReady",
                  "containers with unready status: [" + names_of(specs) + "]", now_text);
    set_condition(conditions, "ContainersReady", "False", "ContainersNotReady",
                  "containers with unready status: [" + names_of(specs) + "]", now_text);
    set_condition(conditions, "PodScheduled", "True", "", "", now_text);
    json statuses = json::array();
    for (const json& c : specs) {
      statuses.push_back(container_status(c, pod, {{"waiting", {{"reason", "ContainerCreating"}}}},
                                          false, false, 0, json::object()));
    }
    status["containerStatuses"] = std::move(statuses);
    step.status = std::move(status);
    step.recheck = timing.start_delay;
    return step;
  }
  const auto started = parse_time(start_text).value_or(now);
  const std::string phase = string_at(pod, {"status", "phase"});
  if (phase == "Pending") {
    const auto running_at = started + timing.start_delay;
    if (now < running_at) {
      step.recheck = std::chrono::duration_cast<milliseconds>(running_at - now) + milliseconds(1);
      return step;
    }
    for (const json& c : specs) {
      const std::string name = string_at(c, {"name"});
      const std::string image = string_at(c, {"image"});
      step.events.push_back(
          {"Normal", "Pulled", "Container image \"" + image + "\" already present on machine"});
      step.events.push_back({"Normal", "Created", "Created container " + name});
      step.events.push_back({"Normal", "Started", "Started container " + name});
    }
  }
  // Running (or starting now): which containers are ready, and whether they should exit.
  const std::string policy = string_at(pod, {"spec", "restartPolicy"});
  const int64_t run_seconds = annotation_number(pod, kRunSeconds, 3);
  const int64_t exit_code = annotation_number(pod, kExitCode, 0);
  const bool exits = policy == "Never" || policy == "OnFailure" ||
                     (at(pod, {"metadata", "annotations", kRunSeconds}) != nullptr);
  json status = base_status(pod, "Running", host_ip, start_text);
  status["podIP"] = pod_ip;
  status["podIPs"] = json::array({{{"ip", pod_ip}}});
  const json* old_statuses = at(pod, {"status", "containerStatuses"});
  std::optional<milliseconds> next;
  auto sooner = [&](milliseconds d) { next = next ? std::min(*next, d) : d; };
  bool all_ready = true;
  bool all_done = true;
  bool any_failed = false;
  json statuses = json::array();
  for (const json& c : specs) {
    const std::string name = string_at(c, {"name"});
    const json* old = nullptr;
    if (old_statuses != nullptr && old_statuses->is_array()) {
      for (const json& s : *old_statuses) {
        if (string_at(s, {"name"}) == name)
          old = &s;
      }
    }
    int64_t restarts = old != nullptr ? int_at(*old, {"restartCount"}, 0) : 0;
    json last_state =
        old != nullptr && old->contains("lastState") ? (*old)["lastState"] : json::object();
    std::string since_text =
        old != nullptr ? string_at(*old, {"state", "running", "startedAt"}) : std::string();
    if (old != nullptr && old->contains("/state/terminated"_json_pointer)) {
      statuses.push_back(*old);  // exited for good
      any_failed = any_failed || int_at(*old, {"state", "terminated", "exitCode"}, 0) != 0;
      all_ready = false;
      continue;
    }
    if (since_text.empty()) {
      since_text = now_text;
    }
    const auto since = parse_time(since_text).value_or(now);
    if (exits && now >= since + std::chrono::seconds(run_seconds)) {
      json terminated = {{"exitCode", exit_code},
                         {"reason", exit_code == 0 ? "Completed" : "Error"},
                         {"startedAt", since_text},
                         {"finishedAt", now_text}};
      if (policy == "Always" || (exit_code != 0 && policy == "OnFailure")) {
        // Restarted in place (without the real kubelet's back-off).
        last_state = {{"terminated", terminated}};
        ++restarts;
        statuses.push_back(container_status(c, pod, {{"running", {{"startedAt", now_text}}}},
                                            readiness_delay_seconds(c) <= 0, true, restarts,
                                            last_state));
        all_done = false;
        sooner(std::chrono::seconds(run_seconds));
        step.events.push_back({"Warning", "BackOff",
                               "Back-off restarting failed container " + name + " in pod " +
                                   name_of(pod) + "_" + namespace_of(pod) + "(" + uid_of(pod) +
                                   ")"});
        continue;
      }
      any_failed = any_failed || exit_code != 0;
      statuses.push_back(container_status(c, pod, {{"terminated", terminated}}, false, false,
                                          restarts, last_state));
      all_ready = false;
      continue;
    }
    all_done = false;
    const int64_t ready_after = readiness_delay_seconds(c);
    const bool ready = ready_after < 0 || now >= since + std::chrono::seconds(ready_after);
    if (!ready) {
      all_ready = false;
      sooner(std::chrono::duration_cast<milliseconds>(since + std::chrono::seconds(ready_after) -
                                                      now) +
             milliseconds(1));
    }
    if (exits) {
      sooner(std::chrono::duration_cast<milliseconds>(since + std::chrono::seconds(run_seconds) -
                                                      now) +
             milliseconds(1));
    }
    statuses.push_back(container_status(c, pod, {{"running", {{"startedAt", since_text}}}}, ready,
                                        true, restarts, last_state));
  }
  status["containerStatuses"] = statuses;
  json& conditions = status["conditions"];
  set_condition(conditions, "PodReadyToStartContainers", "True", "", "", now_text);
  std::string unready;
  for (const json& s : statuses) {
    if (!bool_at(s, {"ready"}, false)) {
      unready += (unready.empty() ? "" : " ") + string_at(s, {"name"});
    }
  }
  if (all_done && !specs.empty()) {
    status["phase"] = any_failed ? "Failed" : "Succeeded";
    set_condition(conditions, "PodReadyToStartContainers", "False", "", "", now_text);
    set_condition(conditions, "Ready", "False", "PodCompleted", "", now_text);
    set_condition(conditions, "ContainersReady", "False", "PodCompleted", "", now_text);
  } else if (all_ready) {
    set_condition(conditions, "Ready", "True", "", "", now_text);
    set_condition(conditions, "ContainersReady", "True", "", "", now_text);
  } else {
    const std::string message = "containers with unready status: [" + unready + "]";
    set_condition(conditions, "Ready", "False", "ContainersNotReady", message, now_text);
    set_condition(conditions, "ContainersReady", "False", "ContainersNotReady", message, now_text);
  }
  // Write only what changed: the status differs from the stored one.
  json current = at(pod, {"status"}) != nullptr ? *at(pod, {"status"}) : json::object();
  if (current != status) {
    step.status = std::move(status);
  }
  step.recheck = next;
  return step;
}

}  // namespace cluster
