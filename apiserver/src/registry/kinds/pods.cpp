// Pods and pod templates: their validation beyond the pod spec, their printers, and what a pod
// gets on create (SetDefaults_Pod and PrepareForCreate; the admission plugins' effects, such as
// the service account's token volume, are the plugins' own: admission/plugins/).
#include "registry/kinds/kinds.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "registry/defaulting_fields.h"
#include "registry/go_text.h"
#include "registry/go_values.h"
#include "registry/json_access.h"
#include "registry/kinds/pod_spec.h"
#include "registry/print_cells.h"
#include "registry/table.h"
#include "registry/validation_rules.h"

namespace apiserver::registry::kinds {

namespace {

namespace validate {
using namespace rules;

void validate_pod(const json& obj, Errors& out) {
  validate_pod_spec(get(obj, "spec"), "spec", out);
}

void validate_pod_update(const json& obj, const json& old, Errors& out) {
  // Blank out what a pod update may change, then require the rest to be equal.
  json now = get(obj, "spec");
  json before = get(old, "spec");
  for (const char* list : {"containers", "initContainers"}) {
    if (now.contains(list) && before.contains(list) && now[list].is_array() &&
        before[list].is_array() && now[list].size() == before[list].size()) {
      for (size_t i = 0; i < now[list].size(); ++i) {
        if (now[list][i].is_object() && before[list][i].is_object()) {
          before[list][i]["image"] = now[list][i].value("image", json());
        }
      }
    }
  }
  if (now.contains("activeDeadlineSeconds")) {
    before["activeDeadlineSeconds"] = now["activeDeadlineSeconds"];
  }
  const json& old_tolerations = get(before, "tolerations");
  const json& new_tolerations = get(now, "tolerations");
  if (new_tolerations.is_array()) {
    bool additions_only = true;
    if (old_tolerations.is_array()) {
      for (const auto& t : old_tolerations) {
        additions_only = additions_only && std::find(new_tolerations.begin(), new_tolerations.end(),
                                                     t) != new_tolerations.end();
      }
    }
    if (additions_only) {
      before["tolerations"] = new_tolerations;
    }
  }
  const json& old_grace = get(before, "terminationGracePeriodSeconds");
  if (old_grace.is_number_integer() && old_grace.get<int64_t>() < 0 &&
      get(now, "terminationGracePeriodSeconds") == json(1)) {
    before["terminationGracePeriodSeconds"] = 1;
  }
  if (now != before) {
    // Upstream appends "\n" and a cmp.Diff of the internal PodSpec; not reproduced.
    out.push_back(forbidden(
        "spec",
        "pod updates may not change fields other than `spec.containers[*].image`,"
        "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
        "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be "
        "set to 1 if it was previously negative)"));
  }
}

}  // namespace validate

namespace print {
using namespace cells;

bool is_sidecar(const json& init_container) {
  return str(at(init_container, "restartPolicy")) == "Always";
}

json print_pod(const json& pod, const Context& c) {
  const json& spec = at(pod, "spec");
  const json& status = at(pod, "status");
  int64_t restarts = 0;
  int64_t sidecar_restarts = 0;
  int64_t total = static_cast<int64_t>(arr(at(spec, "containers")).size());
  int64_t ready = 0;
  Instant last_restart{kZeroTimeSec, 0};
  Instant last_sidecar_restart{kZeroTimeSec, 0};

  const std::string phase = str(at(status, "phase"));
  std::string reason = phase;
  if (auto r = str(at(status, "reason")); !r.empty()) {
    reason = r;
  }
  for (const auto& cond : arr(at(status, "conditions"))) {
    if (str(at(cond, "type")) == "PodScheduled" && str(at(cond, "reason")) == "SchedulingGated") {
      reason = "SchedulingGated";
    }
  }

  std::map<std::string, bool> sidecars;
  const auto& init_specs = arr(at(spec, "initContainers"));
  for (const auto& ic : init_specs) {
    sidecars[str(at(ic, "name"))] = is_sidecar(ic);
    if (is_sidecar(ic)) {
      ++total;
    }
  }
  const auto sidecar = [&](const json& cs) {
    auto it = sidecars.find(str(at(cs, "name")));
    return it != sidecars.end() && it->second;
  };
  const auto note_restart = [](const json& cs, Instant& latest) {
    const json& finished = at(cs, "lastState", "terminated");
    if (finished.is_object()) {
      const Instant t = time_of(at(finished, "finishedAt"));
      if (before(latest, t)) {
        latest = t;
      }
    }
  };

  bool initializing = false;
  const auto& init_statuses = arr(at(status, "initContainerStatuses"));
  for (size_t i = 0; i < init_statuses.size(); ++i) {
    const json& cs = init_statuses[i];
    restarts += integer(at(cs, "restartCount"));
    note_restart(cs, last_restart);
    if (sidecar(cs)) {
      sidecar_restarts += integer(at(cs, "restartCount"));
      note_restart(cs, last_sidecar_restart);
    }
    const json& terminated = at(cs, "state", "terminated");
    const json& waiting = at(cs, "state", "waiting");
    if (terminated.is_object() && integer(at(terminated, "exitCode")) == 0) {
      continue;
    }
    if (sidecar(cs) && boolean(at(cs, "started"))) {
      if (boolean(at(cs, "ready"))) {
        ++ready;
      }
      continue;
    }
    if (terminated.is_object()) {
      if (auto r = str(at(terminated, "reason")); !r.empty()) {
        reason = "Init:" + r;
      } else if (auto signal = integer(at(terminated, "signal")); signal != 0) {
        reason = "Init:Signal:" + int_text(signal);
      } else {
        reason = "Init:ExitCode:" + int_text(integer(at(terminated, "exitCode")));
      }
    } else if (waiting.is_object() && !str(at(waiting, "reason")).empty() &&
               str(at(waiting, "reason")) != "PodInitializing") {
      reason = "Init:" + str(at(waiting, "reason"));
    } else {
      reason = "Init:" + int_text(static_cast<int64_t>(i)) + "/" +
               int_text(static_cast<int64_t>(init_specs.size()));
    }
    initializing = true;
    break;
  }

  const json& initialized = condition(at(status, "conditions"), "Initialized");
  if (!initializing || str(at(initialized, "status")) == "True") {
    restarts = sidecar_restarts;
    last_restart = last_sidecar_restart;
    bool has_running = false;
    const auto& statuses = arr(at(status, "containerStatuses"));
    for (size_t k = statuses.size(); k-- > 0;) {
      const json& cs = statuses[k];
      restarts += integer(at(cs, "restartCount"));
      note_restart(cs, last_restart);
      const json& terminated = at(cs, "state", "terminated");
      const json& waiting = at(cs, "state", "waiting");
      if (waiting.is_object() && !str(at(waiting, "reason")).empty()) {
        reason = str(at(waiting, "reason"));
      } else if (terminated.is_object() && !str(at(terminated, "reason")).empty()) {
        reason = str(at(terminated, "reason"));
      } else if (terminated.is_object()) {
        if (auto signal = integer(at(terminated, "signal")); signal != 0) {
          reason = "Signal:" + int_text(signal);
        } else {
          reason = "ExitCode:" + int_text(integer(at(terminated, "exitCode")));
        }
      } else if (boolean(at(cs, "ready")) && at(cs, "state", "running").is_object()) {
        has_running = true;
        ++ready;
      }
    }
    if (reason == "Completed" && has_running) {
      bool pod_ready = false;
      for (const auto& cond : arr(at(status, "conditions"))) {
        if (str(at(cond, "type")) == "Ready" && str(at(cond, "status")) == "True") {
          pod_ready = true;
        }
      }
      reason = pod_ready ? "Running" : "NotReady";
    }
  }

  const bool deleting = present(at(pod, "metadata", "deletionTimestamp"));
  if (deleting && str(at(status, "reason")) == "NodeLost") {
    reason = "Unknown";
  } else if (deleting && phase != "Succeeded" && phase != "Failed") {
    reason = "Terminating";
  }

  std::string restarts_text = int_text(restarts);
  if (restarts != 0 && !is_zero(last_restart)) {
    restarts_text += " (" + since(last_restart, c) + " ago)";
  }

  std::string ip = "<none>";
  if (const auto& ips = arr(at(status, "podIPs")); !ips.empty()) {
    if (auto first = str(at(ips[0], "ip")); !first.empty()) {
      ip = first;
    }
  }
  std::string node = str(at(spec, "nodeName"));
  std::string nominated = str(at(status, "nominatedNodeName"));
  std::string gates = "<none>";
  if (const auto& rg = arr(at(spec, "readinessGates")); !rg.empty()) {
    int64_t true_count = 0;
    for (const auto& gate : rg) {
      const json& cond = condition(at(status, "conditions"), str(at(gate, "conditionType")));
      if (str(at(cond, "status")) == "True") {
        ++true_count;
      }
    }
    gates = ratio(true_count, static_cast<int64_t>(rg.size()));
  }
  return json::array({name_of(pod), ratio(ready, total), reason, restarts_text, age(pod, c), ip,
                      node.empty() ? "<none>" : node, nominated.empty() ? "<none>" : nominated,
                      gates});
}

json print_pod_template(const json& obj, const Context&) {
  auto [names, images] = container_cells(at(obj, "template", "spec"));
  return json::array(
      {name_of(obj), names, images, format_labels(at(obj, "template", "metadata", "labels"))});
}

}  // namespace print

namespace defaulting {
using namespace fields;

// SetDefaults_Pod: the parts that apply to pods only, not to templates.
void default_pod_only(json& spec) {
  for (const char* list : {"containers", "initContainers"}) {
    for_each_object(spec, list, [](json& c) {
      json* resources = existing_object(c, "resources");
      if (resources == nullptr) {
        return;
      }
      json* limits = existing_object(*resources, "limits");
      if (limits == nullptr) {
        return;
      }
      json* requests = object_at(*resources, "requests");
      if (requests == nullptr) {
        return;
      }
      for (auto it = limits->begin(); it != limits->end(); ++it) {
        if (requests->find(it.key()) == requests->end()) {
          (*requests)[it.key()] = *it;
        }
      }
    });
  }
  default_value(spec, "enableServiceLinks", true);
  auto host_network = spec.find("hostNetwork");
  if (host_network != spec.end() && host_network->is_boolean() && host_network->get<bool>()) {
    for (const char* list : {"containers", "initContainers"}) {
      for_each_object(spec, list, [](json& c) {
        for_each_object(c, "ports", [](json& port) {
          auto hp = port.find("hostPort");
          if (hp == port.end() || hp->is_null() || (hp->is_number() && hp->get<long long>() == 0)) {
            if (port.contains("containerPort")) {
              port["hostPort"] = port["containerPort"];
            }
          }
        });
      });
    }
  }
}

void default_pod(json& pod, const DefaultingContext& ctx) {
  json* spec = object_at(pod, "spec");
  if (spec == nullptr) {
    return;
  }
  default_pod_only(*spec);
  default_pod_spec(*spec);
  if (ctx.phase == DefaultingPhase::Create) {
    pod["status"] = {{"phase", "Pending"}, {"qosClass", pod_qos_class(pod)}};
  }
}

}  // namespace defaulting

// CheckGracefulDelete: the request's grace period, else the pod's terminationGracePeriodSeconds;
// none for a pod no node runs or one that has finished, and at least a second otherwise.
int64_t pod_grace_period(const json& pod, std::optional<int64_t> requested) {
  int64_t period = requested
                       ? *requested
                       : integer_at(pod, {"spec", "terminationGracePeriodSeconds"}).value_or(0);
  const std::string phase = string_at(pod, {"status", "phase"});
  if (string_at(pod, {"spec", "nodeName"}).empty() || phase == "Failed" || phase == "Succeeded") {
    period = 0;
  }
  return period < 0 ? 1 : period;
}

}  // namespace

void add_pods(Strategies& s) {
  s.push_back({.group = "",
               .kind = "Pod",
               .defaults = defaulting::default_pod,
               .validate = validate::validate_pod,
               .validate_update = validate::validate_pod_update,
               .print = print::print_pod,
               .grace_period = pod_grace_period});
  s.push_back({.group = "",
               .kind = "PodTemplate",
               .defaults =
                   [](json& o, const DefaultingContext&) {
                     if (json* tmpl = fields::object_at(o, "template")) {
                       default_pod_template(*tmpl);
                     }
                   },
               .print = print::print_pod_template});
}

}  // namespace apiserver::registry::kinds
