#include "registry/table.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "registry/custom_resources.h"
#include "registry/go_text.h"
#include "registry/selectors.h"

namespace apiserver::registry {
namespace {

using json = nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Reading stored objects. Every accessor tolerates absent and mistyped fields, the way a Go
// struct decoded from the same JSON would hold zero values.

const json& null_json() {
  static const json kNull;
  return kNull;
}

const json& empty_array() {
  static const json kEmpty = json::array();
  return kEmpty;
}

const json& at(const json& j, std::string_view key) {
  if (j.is_object()) {
    if (auto it = j.find(key); it != j.end()) {
      return *it;
    }
  }
  return null_json();
}

template <typename... Keys>
const json& at(const json& j, std::string_view key, Keys... rest) {
  return at(at(j, key), rest...);
}

const json& arr(const json& j) {
  return j.is_array() ? j : empty_array();
}

bool present(const json& j) {
  return !j.is_null();
}

std::string str(const json& j) {
  return j.is_string() ? j.get<std::string>() : std::string();
}

int64_t integer(const json& j, int64_t fallback = 0) {
  if (j.is_number_integer()) {
    return j.get<int64_t>();
  }
  if (j.is_number_unsigned()) {
    return static_cast<int64_t>(j.get<uint64_t>());
  }
  if (j.is_number_float()) {
    return static_cast<int64_t>(j.get<double>());
  }
  return fallback;
}

bool boolean(const json& j, bool fallback = false) {
  return j.is_boolean() ? j.get<bool>() : fallback;
}

// resource.Quantity.String() of a stored quantity; the zero Quantity prints "0".
std::string quantity(const json& j) {
  if (j.is_string()) {
    return j.get<std::string>();
  }
  if (j.is_number()) {
    return j.dump();
  }
  return "0";
}

// intstr.IntOrString.String().
std::string int_or_string(const json& j) {
  if (j.is_string()) {
    return j.get<std::string>();
  }
  return std::to_string(integer(j));
}

std::string lower(std::string s) {
  for (auto& c : s) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return s;
}

std::string trim_space(const std::string& s) {
  const auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  size_t b = 0;
  size_t e = s.size();
  while (b < e && is_space(s[b])) {
    ++b;
  }
  while (e > b && is_space(s[e - 1])) {
    --e;
  }
  return s.substr(b, e - b);
}

// The first condition of `type` in a conditions list, or null.
const json& condition(const json& conditions, std::string_view type) {
  for (const auto& c : arr(conditions)) {
    if (str(at(c, "type")) == type) {
      return c;
    }
  }
  return null_json();
}

// ---------------------------------------------------------------------------------------------
// Time. Kept as seconds + nanoseconds since the Unix epoch so that Go's zero time (year 1),
// which system_clock cannot represent, still parses.

struct Instant {
  int64_t sec = 0;
  int64_t nsec = 0;
};

constexpr int64_t kZeroTimeSec = -62135596800;  // 0001-01-01T00:00:00Z, Go's time.Time{}

bool is_zero(const Instant& t) {
  return t.sec == kZeroTimeSec && t.nsec == 0;
}

bool before(const Instant& a, const Instant& b) {
  return a.sec < b.sec || (a.sec == b.sec && a.nsec < b.nsec);
}

// Days since 1970-01-01 of a proleptic Gregorian date.
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void civil_from_days(int64_t z, int64_t& y, int64_t& m, int64_t& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp + (mp < 10 ? 3 : -9);
  y = yoe + era * 400 + (m <= 2 ? 1 : 0);
}

bool digits(std::string_view s, size_t pos, size_t n, int64_t& out) {
  if (pos + n > s.size()) {
    return false;
  }
  out = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') {
      return false;
    }
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// RFC 3339 as metav1.Time and metav1.MicroTime write it: "2006-01-02T15:04:05Z", optional
// fractional seconds, "Z" or a ±hh:mm offset.
std::optional<Instant> parse_time(std::string_view s) {
  int64_t y = 0;
  int64_t mo = 0;
  int64_t d = 0;
  int64_t h = 0;
  int64_t mi = 0;
  int64_t se = 0;
  if (!digits(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || s[10] != 'T' || !digits(s, 11, 2, h) || s[13] != ':' ||
      !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, se)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59) {
    return std::nullopt;
  }
  size_t pos = 19;
  int64_t nsec = 0;
  if (s[pos] == '.') {
    ++pos;
    int64_t scale = 100000000;
    const size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      nsec += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start) {
      return std::nullopt;
    }
  }
  int64_t offset = 0;
  if (pos < s.size() && s[pos] == 'Z' && pos + 1 == s.size()) {
    offset = 0;
  } else if (pos + 6 == s.size() && (s[pos] == '+' || s[pos] == '-') && s[pos + 3] == ':') {
    int64_t oh = 0;
    int64_t om = 0;
    if (!digits(s, pos + 1, 2, oh) || !digits(s, pos + 4, 2, om)) {
      return std::nullopt;
    }
    offset = (oh * 3600 + om * 60) * (s[pos] == '-' ? -1 : 1);
  } else {
    return std::nullopt;
  }
  Instant t;
  t.sec = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - offset;
  t.nsec = nsec;
  return t;
}

// A stored timestamp; absent, null or unparsable values read as the zero time.
Instant time_of(const json& j) {
  if (j.is_string()) {
    if (auto t = parse_time(j.get<std::string>())) {
      return *t;
    }
  }
  return Instant{kZeroTimeSec, 0};
}

Instant instant_of(std::chrono::system_clock::time_point tp) {
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(tp.time_since_epoch()).count();
  Instant t;
  t.sec = ns / 1000000000;
  t.nsec = ns % 1000000000;
  if (t.nsec < 0) {
    t.nsec += 1000000000;
    t.sec -= 1;
  }
  return t;
}

// Go's Time.Sub: b - a, saturating at the limits of time.Duration.
std::chrono::nanoseconds sub(const Instant& b, const Instant& a) {
  constexpr int64_t kMaxSec = 9223372035;  // just under max int64 nanoseconds
  const int64_t ds = b.sec - a.sec;
  if (ds > kMaxSec) {
    return std::chrono::nanoseconds(INT64_MAX);
  }
  if (ds < -kMaxSec) {
    return std::chrono::nanoseconds(INT64_MIN);
  }
  return std::chrono::nanoseconds(ds * 1000000000 + (b.nsec - a.nsec));
}

// Time.UTC().Format(time.RFC3339).
std::string format_rfc3339(const Instant& t) {
  int64_t days = t.sec / 86400;
  int64_t rem = t.sec % 86400;
  if (rem < 0) {
    rem += 86400;
    days -= 1;
  }
  int64_t y = 0;
  int64_t m = 0;
  int64_t d = 0;
  civil_from_days(days, y, m, d);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ",
                static_cast<long long>(y), static_cast<long long>(m), static_cast<long long>(d),
                static_cast<long long>(rem / 3600), static_cast<long long>(rem / 60 % 60),
                static_cast<long long>(rem % 60));
  return buf;
}

struct Context {
  Instant now;
};

// translateTimestampSince / translateMicroTimestampSince.
std::string since(const Instant& t, const Context& c) {
  if (is_zero(t)) {
    return "<unknown>";
  }
  return human_duration(sub(c.now, t));
}

std::string since(const json& timestamp, const Context& c) {
  return since(time_of(timestamp), c);
}

std::string age(const json& obj, const Context& c) {
  return since(at(obj, "metadata", "creationTimestamp"), c);
}

std::string name_of(const json& obj) {
  return str(at(obj, "metadata", "name"));
}

// ---------------------------------------------------------------------------------------------
// Shared cell formats.

// labels.FormatLabels: "k=v" by key, joined with ","; "<none>" when empty.
std::string format_labels(const json& labels) {
  std::vector<std::string> parts;
  if (labels.is_object()) {
    for (auto it = labels.begin(); it != labels.end(); ++it) {  // keys iterate sorted
      parts.push_back(it.key() + "=" + str(it.value()));
    }
  }
  return parts.empty() ? "<none>" : join(parts, ",");
}

// metav1.FormatLabelSelector: "<error>" when unconvertible, "<none>" when it selects nothing
// in particular (null or empty).
std::string format_label_selector(const json& selector) {
  std::string error;
  auto parsed = LabelSelector::from_json(selector, error);
  if (!parsed) {
    return "<error>";
  }
  auto text = parsed->to_string();
  return text.empty() ? "<none>" : text;
}

// Deployment's own spelling: LabelSelectorAsSelector(...).String(), "<invalid>" on error.
std::string deployment_selector(const json& selector) {
  std::string error;
  auto parsed = LabelSelector::from_json(selector, error);
  return parsed ? parsed->to_string() : "<invalid>";
}

// layoutContainerCells: names and images joined with ",".
std::pair<std::string, std::string> container_cells(const json& pod_spec) {
  std::vector<std::string> names;
  std::vector<std::string> images;
  for (const auto& c : arr(at(pod_spec, "containers"))) {
    names.push_back(str(at(c, "name")));
    images.push_back(str(at(c, "image")));
  }
  return {join(names, ","), join(images, ",")};
}

// listWithMoreString: up to 3 entries, "+ N more..." beyond, "<unset>" when empty.
std::string list_with_more(const std::vector<std::string>& all) {
  constexpr size_t kMax = 3;
  if (all.size() > kMax) {
    std::vector<std::string> head(all.begin(), all.begin() + kMax);
    return join(head, ",") + " + " + std::to_string(all.size() - kMax) + " more...";
  }
  auto text = join(all, ",");
  return text.empty() ? "<unset>" : text;
}

// loadBalancerStatusStringer with wide=true: sorted unique IPs (hostname when no IP).
std::string load_balancer_text(const json& lb_status) {
  std::set<std::string> result;
  for (const auto& ing : arr(at(lb_status, "ingress"))) {
    if (auto ip = str(at(ing, "ip")); !ip.empty()) {
      result.insert(ip);
    } else if (auto host = str(at(ing, "hostname")); !host.empty()) {
      result.insert(host);
    }
  }
  return join(std::vector<std::string>(result.begin(), result.end()), ",");
}

// helper.GetAccessModesAsString: fixed order, duplicates dropped.
std::string access_modes(const json& modes) {
  std::set<std::string> have;
  for (const auto& m : arr(modes)) {
    have.insert(str(m));
  }
  std::vector<std::string> out;
  const std::pair<const char*, const char*> kShort[] = {{"ReadWriteOnce", "RWO"},
                                                        {"ReadOnlyMany", "ROX"},
                                                        {"ReadWriteMany", "RWX"},
                                                        {"ReadWriteOncePod", "RWOP"}};
  for (const auto& [mode, short_name] : kShort) {
    if (have.count(mode) > 0) {
      out.push_back(short_name);
    }
  }
  return join(out, ",");
}

std::string int_text(int64_t v) {
  return std::to_string(v);
}

std::string ratio(int64_t a, int64_t b) {
  return int_text(a) + "/" + int_text(b);
}

// ---------------------------------------------------------------------------------------------
// Printers, one per kind, each yielding every cell (wide ones included) in column order.

using Printer = std::function<json(const json&, const Context&)>;

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

// spec.replicas as decoded upstream: absent means the defaulted 1.
int64_t desired_replicas(const json& obj) {
  return integer(at(obj, "spec", "replicas"), 1);
}

json print_replication_controller(const json& obj, const Context& c) {
  auto [names, images] = container_cells(at(obj, "spec", "template", "spec"));
  return json::array({name_of(obj), desired_replicas(obj), integer(at(obj, "status", "replicas")),
                      integer(at(obj, "status", "readyReplicas")), age(obj, c), names, images,
                      format_labels(at(obj, "spec", "selector"))});
}

json print_replica_set(const json& obj, const Context& c) {
  auto [names, images] = container_cells(at(obj, "spec", "template", "spec"));
  return json::array({name_of(obj), desired_replicas(obj), integer(at(obj, "status", "replicas")),
                      integer(at(obj, "status", "readyReplicas")), age(obj, c), names, images,
                      format_label_selector(at(obj, "spec", "selector"))});
}

json print_deployment(const json& obj, const Context& c) {
  auto [names, images] = container_cells(at(obj, "spec", "template", "spec"));
  const json& status = at(obj, "status");
  return json::array(
      {name_of(obj), ratio(integer(at(status, "readyReplicas")), desired_replicas(obj)),
       integer(at(status, "updatedReplicas")), integer(at(status, "availableReplicas")),
       age(obj, c), names, images, deployment_selector(at(obj, "spec", "selector"))});
}

json print_stateful_set(const json& obj, const Context& c) {
  auto [names, images] = container_cells(at(obj, "spec", "template", "spec"));
  return json::array({name_of(obj),
                      ratio(integer(at(obj, "status", "readyReplicas")), desired_replicas(obj)),
                      age(obj, c), names, images});
}

json print_daemon_set(const json& obj, const Context& c) {
  auto [names, images] = container_cells(at(obj, "spec", "template", "spec"));
  const json& s = at(obj, "status");
  return json::array({name_of(obj), integer(at(s, "desiredNumberScheduled")),
                      integer(at(s, "currentNumberScheduled")), integer(at(s, "numberReady")),
                      integer(at(s, "updatedNumberScheduled")), integer(at(s, "numberAvailable")),
                      format_labels(at(obj, "spec", "template", "spec", "nodeSelector")),
                      age(obj, c), names, images,
                      format_label_selector(at(obj, "spec", "selector"))});
}

json print_controller_revision(const json& obj, const Context& c) {
  std::string controller = "<none>";
  for (const auto& ref : arr(at(obj, "metadata", "ownerReferences"))) {
    if (!boolean(at(ref, "controller"))) {
      continue;
    }
    // schema.GroupKind.String() lower-cased: "kind.group", or "kind" for the core group.
    const std::string api_version = str(at(ref, "apiVersion"));
    const auto slash = api_version.find('/');
    const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    const std::string kind = str(at(ref, "kind"));
    const std::string name = str(at(ref, "name"));
    if (group.empty() && kind.empty()) {
      controller = name;
    } else {
      controller = lower(group.empty() ? kind : kind + "." + group) + "/" + name;
    }
    break;
  }
  return json::array({name_of(obj), controller, integer(at(obj, "revision")), age(obj, c)});
}

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

std::string service_external_ip(const json& svc) {
  const json& spec = at(svc, "spec");
  std::vector<std::string> external;
  for (const auto& ip : arr(at(spec, "externalIPs"))) {
    external.push_back(str(ip));
  }
  const std::string type = str(at(spec, "type"));
  if (type == "ClusterIP" || type == "NodePort") {
    return external.empty() ? "<none>" : join(external, ",");
  }
  if (type == "LoadBalancer") {
    const std::string lb = load_balancer_text(at(svc, "status", "loadBalancer"));
    if (!external.empty()) {
      std::vector<std::string> results;
      if (!lb.empty()) {
        size_t start = 0;
        while (true) {
          const auto comma = lb.find(',', start);
          results.push_back(lb.substr(start, comma - start));
          if (comma == std::string::npos) {
            break;
          }
          start = comma + 1;
        }
      }
      results.insert(results.end(), external.begin(), external.end());
      return join(results, ",");
    }
    return lb.empty() ? "<pending>" : lb;
  }
  if (type == "ExternalName") {
    return str(at(spec, "externalName"));
  }
  return "<unknown>";
}

json print_service(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  std::string cluster_ip = "<none>";
  if (const auto& ips = arr(at(spec, "clusterIPs")); !ips.empty()) {
    cluster_ip = str(ips[0]);
  }
  std::vector<std::string> ports;
  for (const auto& p : arr(at(spec, "ports"))) {
    const int64_t node_port = integer(at(p, "nodePort"));
    std::string piece = int_text(integer(at(p, "port")));
    if (node_port > 0) {
      piece += ":" + int_text(node_port);
    }
    ports.push_back(piece + "/" + str(at(p, "protocol")));
  }
  std::string port_text = join(ports, ",");
  return json::array({name_of(obj), str(at(spec, "type")), cluster_ip, service_external_ip(obj),
                      port_text.empty() ? "<none>" : port_text, age(obj, c),
                      format_labels(at(spec, "selector"))});
}

// net.JoinHostPort: IPv6 literals get brackets.
std::string host_port(const std::string& host, int64_t port) {
  if (host.find(':') != std::string::npos) {
    return "[" + host + "]:" + int_text(port);
  }
  return host + ":" + int_text(port);
}

std::string format_endpoints(const json& ep) {
  const auto& subsets = arr(at(ep, "subsets"));
  if (subsets.empty()) {
    return "<none>";
  }
  constexpr size_t kMax = 3;
  std::vector<std::string> list;
  bool more = false;
  int64_t count = 0;
  for (const auto& ss : subsets) {
    const auto& addresses = arr(at(ss, "addresses"));
    const auto& ports = arr(at(ss, "ports"));
    if (ports.empty()) {
      count += static_cast<int64_t>(addresses.size());
      for (const auto& a : addresses) {
        if (list.size() == kMax) {
          more = true;
          break;
        }
        list.push_back(str(at(a, "ip")));
      }
      continue;
    }
    for (const auto& p : ports) {
      count += static_cast<int64_t>(addresses.size());
      for (const auto& a : addresses) {
        if (list.size() == kMax) {
          more = true;
          break;
        }
        list.push_back(host_port(str(at(a, "ip")), integer(at(p, "port"))));
      }
    }
  }
  auto text = join(list, ",");
  if (more) {
    return text + " + " + int_text(count - static_cast<int64_t>(kMax)) + " more...";
  }
  return text;
}

json print_endpoints(const json& obj, const Context& c) {
  return json::array({name_of(obj), format_endpoints(obj), age(obj, c)});
}

json print_endpoint_slice(const json& obj, const Context& c) {
  std::vector<std::string> ports;
  for (const auto& p : arr(at(obj, "ports"))) {
    if (at(p, "port").is_number()) {
      ports.push_back(int_text(integer(at(p, "port"))));
    } else if (at(p, "name").is_string()) {
      ports.push_back(str(at(p, "name")));
    } else {
      ports.push_back("*");
    }
  }
  std::vector<std::string> addresses;
  for (const auto& e : arr(at(obj, "endpoints"))) {
    for (const auto& a : arr(at(e, "addresses"))) {
      addresses.push_back(str(a));
    }
  }
  return json::array({name_of(obj), str(at(obj, "addressType")), list_with_more(ports),
                      list_with_more(addresses), age(obj, c)});
}

json print_ingress(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  const json& cls = at(spec, "ingressClassName");
  // formatHosts: the first 3 non-empty hosts of the first 3 rules; N counts all rules past 3.
  constexpr size_t kMax = 3;
  const auto& rules = arr(at(spec, "rules"));
  std::vector<std::string> hosts;
  bool more = false;
  for (const auto& rule : rules) {
    if (hosts.size() == kMax) {
      more = true;
    }
    if (!more && !str(at(rule, "host")).empty()) {
      hosts.push_back(str(at(rule, "host")));
    }
  }
  std::string host_text = "*";
  if (!hosts.empty()) {
    host_text = join(hosts, ",");
    if (more) {
      host_text += " + " + int_text(static_cast<int64_t>(rules.size() - kMax)) + " more...";
    }
  }
  const std::string ports = arr(at(spec, "tls")).empty() ? "80" : "80, 443";
  return json::array({name_of(obj), cls.is_string() ? str(cls) : "<none>", host_text,
                      load_balancer_text(at(obj, "status", "loadBalancer")), ports, age(obj, c)});
}

json print_ingress_class(const json& obj, const Context& c) {
  const json& params = at(obj, "spec", "parameters");
  std::string parameters = "<none>";
  if (params.is_object()) {
    parameters = str(at(params, "kind"));
    if (at(params, "apiGroup").is_string()) {
      parameters += "." + str(at(params, "apiGroup"));
    }
    parameters += "/" + str(at(params, "name"));
  }
  return json::array({name_of(obj), str(at(obj, "spec", "controller")), parameters, age(obj, c)});
}

json print_network_policy(const json& obj, const Context& c) {
  // spec.podSelector is a struct upstream, never nil: absent reads as {} (everything).
  const json& sel = at(obj, "spec", "podSelector");
  return json::array(
      {name_of(obj), format_label_selector(sel.is_null() ? json::object() : sel), age(obj, c)});
}

json print_namespace(const json& obj, const Context& c) {
  return json::array({name_of(obj), str(at(obj, "status", "phase")), age(obj, c)});
}

json print_secret(const json& obj, const Context& c) {
  const json& data = at(obj, "data");
  return json::array({name_of(obj), str(at(obj, "type")),
                      static_cast<int64_t>(data.is_object() ? data.size() : 0), age(obj, c)});
}

json print_config_map(const json& obj, const Context& c) {
  int64_t n = 0;
  for (const char* key : {"data", "binaryData"}) {
    if (const json& m = at(obj, key); m.is_object()) {
      n += static_cast<int64_t>(m.size());
    }
  }
  return json::array({name_of(obj), n, age(obj, c)});
}

json print_service_account(const json& obj, const Context& c) {
  return json::array(
      {name_of(obj), static_cast<int64_t>(arr(at(obj, "secrets")).size()), age(obj, c)});
}

json print_node(const json& obj, const Context& c) {
  // The last Ready condition wins (upstream builds a map by type).
  const json* ready = nullptr;
  for (const auto& cond : arr(at(obj, "status", "conditions"))) {
    if (str(at(cond, "type")) == "Ready") {
      ready = &cond;
    }
  }
  std::vector<std::string> status;
  if (ready != nullptr) {
    status.push_back(str(at(*ready, "status")) == "True" ? "Ready" : "NotReady");
  } else {
    status.push_back("Unknown");
  }
  if (boolean(at(obj, "spec", "unschedulable"))) {
    status.push_back("SchedulingDisabled");
  }
  std::set<std::string> roles;
  const json& labels = at(obj, "metadata", "labels");
  if (labels.is_object()) {
    constexpr std::string_view kPrefix = "node-role.kubernetes.io/";
    for (auto it = labels.begin(); it != labels.end(); ++it) {
      const std::string& k = it.key();
      if (k.size() > kPrefix.size() && k.compare(0, kPrefix.size(), kPrefix) == 0) {
        roles.insert(k.substr(kPrefix.size()));
      } else if (k == "kubernetes.io/role" && !str(it.value()).empty()) {
        roles.insert(str(it.value()));
      }
    }
  }
  std::string role_text = join(std::vector<std::string>(roles.begin(), roles.end()), ",");
  const auto address = [&](std::string_view type) -> std::string {
    for (const auto& a : arr(at(obj, "status", "addresses"))) {
      if (str(at(a, "type")) == type) {
        return str(at(a, "address"));
      }
    }
    return "<none>";
  };
  const json& info = at(obj, "status", "nodeInfo");
  const auto known = [](std::string s) { return s.empty() ? std::string("<unknown>") : s; };
  return json::array({name_of(obj), join(status, ","), role_text.empty() ? "<none>" : role_text,
                      age(obj, c), str(at(info, "kubeletVersion")), address("InternalIP"),
                      address("ExternalIP"), known(str(at(info, "osImage"))),
                      known(str(at(info, "kernelVersion"))),
                      known(str(at(info, "containerRuntimeVersion")))});
}

constexpr const char* kBetaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";

json print_persistent_volume(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  std::string claim;
  if (const json& ref = at(spec, "claimRef"); ref.is_object()) {
    claim = str(at(ref, "namespace")) + "/" + str(at(ref, "name"));
  }
  std::string phase = str(at(obj, "status", "phase"));
  if (present(at(obj, "metadata", "deletionTimestamp"))) {
    phase = "Terminating";
  }
  // helper.GetPersistentVolumeClass: the beta annotation wins when present.
  const json& annotated = at(obj, "metadata", "annotations", kBetaStorageClassAnnotation);
  const std::string storage_class =
      annotated.is_string() ? str(annotated) : str(at(spec, "storageClassName"));
  const json& vac = at(spec, "volumeAttributesClassName");
  const json& mode = at(spec, "volumeMode");
  return json::array({name_of(obj), quantity(at(spec, "capacity", "storage")),
                      access_modes(at(spec, "accessModes")),
                      str(at(spec, "persistentVolumeReclaimPolicy")), phase, claim, storage_class,
                      vac.is_string() ? str(vac) : "<unset>", str(at(obj, "status", "reason")),
                      age(obj, c), mode.is_string() ? str(mode) : "<unset>"});
}

json print_persistent_volume_claim(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  std::string phase = str(at(obj, "status", "phase"));
  if (present(at(obj, "metadata", "deletionTimestamp"))) {
    phase = "Terminating";
  }
  const std::string volume = str(at(spec, "volumeName"));
  std::string capacity;
  std::string modes;
  if (!volume.empty()) {
    modes = access_modes(at(obj, "status", "accessModes"));
    capacity = quantity(at(obj, "status", "capacity", "storage"));
  }
  // helper.GetPersistentVolumeClaimClass.
  const json& annotated = at(obj, "metadata", "annotations", kBetaStorageClassAnnotation);
  const std::string storage_class =
      annotated.is_string() ? str(annotated) : str(at(spec, "storageClassName"));
  const json& vac = at(spec, "volumeAttributesClassName");
  const json& mode = at(spec, "volumeMode");
  return json::array({name_of(obj), phase, volume, capacity, modes, storage_class,
                      vac.is_string() ? str(vac) : "<unset>", age(obj, c),
                      mode.is_string() ? str(mode) : "<unset>"});
}

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

json print_binding(const json& obj, const Context& c) {
  const json& ref = at(obj, "roleRef");
  std::vector<std::string> users;
  std::vector<std::string> groups;
  std::vector<std::string> sas;
  for (const auto& s : arr(at(obj, "subjects"))) {
    const std::string kind = str(at(s, "kind"));
    if (kind == "ServiceAccount") {
      sas.push_back(str(at(s, "namespace")) + "/" + str(at(s, "name")));
    } else if (kind == "User") {
      users.push_back(str(at(s, "name")));
    } else if (kind == "Group") {
      groups.push_back(str(at(s, "name")));
    }
  }
  return json::array({name_of(obj), str(at(ref, "kind")) + "/" + str(at(ref, "name")), age(obj, c),
                      join(users, ", "), join(groups, ", "), join(sas, ", ")});
}

json print_csr(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  bool approved = false;
  bool denied = false;
  bool failed = false;
  for (const auto& cond : arr(at(obj, "status", "conditions"))) {
    const std::string type = str(at(cond, "type"));
    approved = approved || type == "Approved";
    denied = denied || type == "Denied";
    failed = failed || type == "Failed";
  }
  std::string state = denied ? "Denied" : approved ? "Approved" : "Pending";
  if (failed) {
    state += ",Failed";
  }
  if (!str(at(obj, "status", "certificate")).empty()) {
    state += ",Issued";
  }
  const std::string signer = str(at(spec, "signerName"));
  std::string requested = "<none>";
  if (present(at(spec, "expirationSeconds"))) {
    requested = human_duration(std::chrono::seconds(integer(at(spec, "expirationSeconds"))));
  }
  return json::array({name_of(obj), age(obj, c), signer.empty() ? "<none>" : signer,
                      str(at(spec, "username")), requested, state});
}

json print_cluster_trust_bundle(const json& obj, const Context&) {
  const std::string signer = str(at(obj, "spec", "signerName"));
  return json::array({name_of(obj), signer.empty() ? "<none>" : signer});
}

json print_component_status(const json& obj, const Context&) {
  std::string status = "Unknown";
  std::string message;
  std::string error;
  const json& cond = condition(at(obj, "conditions"), "Healthy");
  if (cond.is_object()) {
    status = str(at(cond, "status")) == "True" ? "Healthy" : "Unhealthy";
    message = str(at(cond, "message"));
    error = str(at(cond, "error"));
  }
  return json::array({name_of(obj), status, message, error});
}

// formatHPAMetrics over autoscaling/v2 metric specs and statuses.
std::string hpa_metrics(const json& specs, const json& statuses) {
  const auto& spec_list = arr(specs);
  if (spec_list.empty()) {
    return "<none>";
  }
  const auto& status_list = arr(statuses);
  const auto status_of = [&](size_t i, const char* key) -> const json& {
    return i < status_list.size() ? at(status_list[i], key) : null_json();
  };
  // Quantity pointers print "<nil>" when nil, as (*Quantity)(nil).String() does.
  const auto q = [](const json& j) { return j.is_null() ? std::string("<nil>") : quantity(j); };
  std::vector<std::string> list;
  for (size_t i = 0; i < spec_list.size(); ++i) {
    const json& spec = spec_list[i];
    const std::string type = str(at(spec, "type"));
    if (type == "External" || type == "Object") {
      const char* key = type == "External" ? "external" : "object";
      const json& target = at(spec, key, "target");
      const json& st = status_of(i, key);
      if (present(at(target, "averageValue"))) {
        std::string current = "<unknown>";
        if (st.is_object() && present(at(st, "current", "averageValue"))) {
          current = q(at(st, "current", "averageValue"));
        }
        list.push_back(current + "/" + q(at(target, "averageValue")) + " (avg)");
      } else {
        std::string current = "<unknown>";
        if (st.is_object()) {
          current = q(at(st, "current", "value"));
        }
        list.push_back(current + "/" + q(at(target, "value")));
      }
    } else if (type == "Pods") {
      std::string current = "<unknown>";
      if (status_of(i, "pods").is_object()) {
        current = q(at(status_of(i, "pods"), "current", "averageValue"));
      }
      list.push_back(current + "/" + q(at(spec, "pods", "target", "averageValue")));
    } else if (type == "Resource" || type == "ContainerResource") {
      const char* key = type == "Resource" ? "resource" : "containerResource";
      const json& src = at(spec, key);
      const json& target = at(src, "target");
      const json& st = status_of(i, key);
      const std::string name = str(at(src, "name"));
      if (present(at(target, "averageValue"))) {
        std::string current = "<unknown>";
        if (st.is_object()) {
          current = q(at(st, "current", "averageValue"));
        }
        list.push_back(name + ": " + current + "/" + q(at(target, "averageValue")));
      } else {
        std::string current = "<unknown>";
        if (st.is_object() && present(at(st, "current", "averageUtilization"))) {
          current = int_text(integer(at(st, "current", "averageUtilization"))) + "%";
        }
        std::string goal = "<auto>";
        if (present(at(target, "averageUtilization"))) {
          goal = int_text(integer(at(target, "averageUtilization"))) + "%";
        }
        list.push_back(name + ": " + current + "/" + goal);
      }
    } else {
      list.push_back("<unknown type>");
    }
  }
  constexpr size_t kMax = 2;
  if (list.size() > kMax) {
    const size_t extra = list.size() - kMax;
    list.resize(kMax);
    return join(list, ", ") + " + " + std::to_string(extra) + " more...";
  }
  return join(list, ", ");
}

json print_hpa(const json& obj, const Context& c, bool v1) {
  const json& spec = at(obj, "spec");
  const json& status = at(obj, "status");
  std::string targets;
  if (v1) {
    // autoscaling/v1 converts targetCPUUtilizationPercentage into one cpu utilization metric.
    json specs = json::array();
    json statuses = json::array();
    if (present(at(spec, "targetCPUUtilizationPercentage"))) {
      specs.push_back({{"type", "Resource"},
                       {"resource",
                        {{"name", "cpu"},
                         {"target",
                          {{"type", "Utilization"},
                           {"averageUtilization", at(spec, "targetCPUUtilizationPercentage")}}}}}});
      if (present(at(status, "currentCPUUtilizationPercentage"))) {
        statuses.push_back(
            {{"type", "Resource"},
             {"resource",
              {{"name", "cpu"},
               {"current",
                {{"averageUtilization", at(status, "currentCPUUtilizationPercentage")}}}}}});
      }
    }
    targets = hpa_metrics(specs, statuses);
  } else {
    targets = hpa_metrics(at(spec, "metrics"), at(status, "currentMetrics"));
  }
  const json& target_ref = at(spec, "scaleTargetRef");
  const json& min = at(spec, "minReplicas");
  return json::array({name_of(obj), str(at(target_ref, "kind")) + "/" + str(at(target_ref, "name")),
                      targets, present(min) ? int_text(integer(min)) : "<unset>",
                      integer(at(spec, "maxReplicas")), integer(at(status, "currentReplicas")),
                      age(obj, c)});
}

json print_pdb(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  const json& min = at(spec, "minAvailable");
  const json& max = at(spec, "maxUnavailable");
  return json::array({name_of(obj), present(min) ? int_or_string(min) : "N/A",
                      present(max) ? int_or_string(max) : "N/A",
                      integer(at(obj, "status", "disruptionsAllowed")), age(obj, c)});
}

json print_storage_class(const json& obj, const Context& c) {
  std::string name = name_of(obj);
  const json& annotations = at(obj, "metadata", "annotations");
  if (str(at(annotations, "storageclass.kubernetes.io/is-default-class")) == "true" ||
      str(at(annotations, "storageclass.beta.kubernetes.io/is-default-class")) == "true") {
    name += " (default)";
  }
  const json& reclaim = at(obj, "reclaimPolicy");
  const json& binding = at(obj, "volumeBindingMode");
  return json::array({name, str(at(obj, "provisioner")),
                      reclaim.is_string() ? str(reclaim) : "Delete",
                      binding.is_string() ? str(binding) : "Immediate",
                      boolean(at(obj, "allowVolumeExpansion")), age(obj, c)});
}

json print_volume_attributes_class(const json& obj, const Context& c) {
  std::string name = name_of(obj);
  // Unverified annotation key (the upstream helper was not read).
  if (str(at(obj, "metadata", "annotations",
             "volumeattributesclass.alpha.kubernetes.io/is-default-class")) == "true") {
    name += " (default)";
  }
  return json::array({name, str(at(obj, "driverName")), age(obj, c)});
}

json print_csi_driver(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  std::vector<std::string> modes;
  for (const auto& m : arr(at(spec, "volumeLifecycleModes"))) {
    modes.push_back(str(m));
  }
  std::string mode_text = join(modes, ",");
  std::string tokens = "<unset>";
  if (at(spec, "tokenRequests").is_array()) {
    std::vector<std::string> audiences;
    for (const auto& t : arr(at(spec, "tokenRequests"))) {
      audiences.push_back(str(at(t, "audience")));
    }
    tokens = join(audiences, ",");
  }
  return json::array({name_of(obj), boolean(at(spec, "attachRequired"), true),
                      boolean(at(spec, "podInfoOnMount")), boolean(at(spec, "storageCapacity")),
                      tokens, boolean(at(spec, "requiresRepublish")),
                      mode_text.empty() ? "<none>" : mode_text, age(obj, c)});
}

json print_csi_node(const json& obj, const Context& c) {
  return json::array(
      {name_of(obj), static_cast<int64_t>(arr(at(obj, "spec", "drivers")).size()), age(obj, c)});
}

json print_csi_storage_capacity(const json& obj, const Context&) {
  const json& capacity = at(obj, "capacity");
  return json::array({name_of(obj), str(at(obj, "storageClassName")),
                      present(capacity) ? quantity(capacity) : "<unset>"});
}

json print_volume_attachment(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  return json::array({name_of(obj), str(at(spec, "attacher")),
                      str(at(spec, "source", "persistentVolumeName")), str(at(spec, "nodeName")),
                      boolean(at(obj, "status", "attached")), age(obj, c)});
}

json print_webhook_configuration(const json& obj, const Context& c) {
  return json::array(
      {name_of(obj), static_cast<int64_t>(arr(at(obj, "webhooks")).size()), age(obj, c)});
}

std::string param_kind(const json& spec) {
  const json& pk = at(spec, "paramKind");
  if (!pk.is_object()) {
    return "<unset>";
  }
  return str(at(pk, "apiVersion")) + "/" + str(at(pk, "kind"));
}

json print_admission_policy(const json& obj, const Context& c, const char* list_key) {
  const json& spec = at(obj, "spec");
  return json::array({name_of(obj), static_cast<int64_t>(arr(at(spec, list_key)).size()),
                      param_kind(spec), age(obj, c)});
}

// The generated String() of metav1.LabelSelector (gogo-protobuf style), which the policy
// binding printers use for a selector paramRef.
std::string label_selector_go_string(const json& sel) {
  std::string labels = "map[string]string{";
  if (const json& ml = at(sel, "matchLabels"); ml.is_object()) {
    for (auto it = ml.begin(); it != ml.end(); ++it) {
      labels += it.key() + ": " + str(it.value()) + ",";
    }
  }
  labels += "}";
  std::string exprs = "[]LabelSelectorRequirement{";
  for (const auto& e : arr(at(sel, "matchExpressions"))) {
    std::vector<std::string> values;
    for (const auto& v : arr(at(e, "values"))) {
      values.push_back(str(v));
    }
    exprs += "LabelSelectorRequirement{Key:" + str(at(e, "key")) +
             ",Operator:" + str(at(e, "operator")) + ",Values:[" + join(values, " ") + "],},";
  }
  exprs += "}";
  return "&LabelSelector{MatchLabels:" + labels + ",MatchExpressions:" + exprs + ",}";
}

json print_admission_policy_binding(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  std::string param = "<unset>";
  if (const json& ref = at(spec, "paramRef"); ref.is_object()) {
    const std::string name = str(at(ref, "name"));
    const std::string ns = str(at(ref, "namespace"));
    if (!name.empty()) {
      param = (ns.empty() ? std::string("*") : ns) + "/" + name;
    } else if (present(at(ref, "selector"))) {
      param = label_selector_go_string(at(ref, "selector"));
    }
  }
  return json::array({name_of(obj), str(at(spec, "policyName")), param, age(obj, c)});
}

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

json print_ip_address(const json& obj, const Context& c) {
  std::string parent = "<none>";
  if (const json& ref = at(obj, "spec", "parentRef"); ref.is_object()) {
    const std::string group = str(at(ref, "group"));
    const std::string resource = str(at(ref, "resource"));
    parent = lower(group.empty() ? resource : resource + "." + group);
    if (!str(at(ref, "namespace")).empty()) {
      parent += "/" + str(at(ref, "namespace"));
    }
    parent += "/" + str(at(ref, "name"));
  }
  // Upstream's printer emits an Age cell that its two column definitions do not declare.
  return json::array({name_of(obj), parent, age(obj, c)});
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

json print_resource_quota(const json& obj, const Context& c) {
  const json& hard = at(obj, "status", "hard");
  const json& used = at(obj, "status", "used");
  std::string requests;
  std::string limits;
  if (hard.is_object()) {
    for (auto it = hard.begin(); it != hard.end(); ++it) {  // sorted by resource name
      const std::string& resource = it.key();
      const auto dot = resource.find('.');
      const bool is_limit = dot != std::string::npos && resource.substr(0, dot) == "limits";
      (is_limit ? limits : requests) +=
          resource + ": " + quantity(at(used, resource)) + "/" + quantity(it.value()) + ", ";
    }
  }
  const auto trim = [](std::string s) {
    if (s.size() >= 2 && s.compare(s.size() - 2, 2, ", ") == 0) {
      s.resize(s.size() - 2);
    }
    return s;
  };
  return json::array({name_of(obj), trim(requests), trim(limits), age(obj, c)});
}

json name_age(const json& obj, const Context& c) {
  return json::array({name_of(obj), age(obj, c)});
}

// Printers keyed by "<group>/<kind>" (the core group is "").
const std::map<std::string, Printer>& printers() {
  static const std::map<std::string, Printer> kPrinters = [] {
    std::map<std::string, Printer> p;
    p["/Pod"] = print_pod;
    p["/PodTemplate"] = print_pod_template;
    p["/ReplicationController"] = print_replication_controller;
    p["/Service"] = print_service;
    p["/Endpoints"] = print_endpoints;
    p["/Namespace"] = print_namespace;
    p["/Secret"] = print_secret;
    p["/ConfigMap"] = print_config_map;
    p["/ServiceAccount"] = print_service_account;
    p["/Node"] = print_node;
    p["/PersistentVolume"] = print_persistent_volume;
    p["/PersistentVolumeClaim"] = print_persistent_volume_claim;
    p["/Event"] = print_core_event;
    p["/ResourceQuota"] = print_resource_quota;
    p["/ComponentStatus"] = print_component_status;
    p["events.k8s.io/Event"] = print_events_api_event;
    p["apps/Deployment"] = print_deployment;
    p["apps/ReplicaSet"] = print_replica_set;
    p["apps/StatefulSet"] = print_stateful_set;
    p["apps/DaemonSet"] = print_daemon_set;
    p["apps/ControllerRevision"] = print_controller_revision;
    p["batch/Job"] = print_job;
    p["batch/CronJob"] = print_cron_job;
    p["policy/PodDisruptionBudget"] = print_pdb;
    p["networking.k8s.io/Ingress"] = print_ingress;
    p["networking.k8s.io/IngressClass"] = print_ingress_class;
    p["networking.k8s.io/NetworkPolicy"] = print_network_policy;
    p["networking.k8s.io/IPAddress"] = print_ip_address;
    p["networking.k8s.io/ServiceCIDR"] = [](const json& obj, const Context& c) {
      std::vector<std::string> cidrs;
      for (const auto& x : arr(at(obj, "spec", "cidrs"))) {
        cidrs.push_back(str(x));
      }
      return json::array({name_of(obj), join(cidrs, ","), age(obj, c)});
    };
    p["discovery.k8s.io/EndpointSlice"] = print_endpoint_slice;
    p["rbac.authorization.k8s.io/RoleBinding"] = print_binding;
    p["rbac.authorization.k8s.io/ClusterRoleBinding"] = print_binding;
    p["coordination.k8s.io/Lease"] = [](const json& obj, const Context& c) {
      return json::array({name_of(obj), str(at(obj, "spec", "holderIdentity")), age(obj, c)});
    };
    p["coordination.k8s.io/LeaseCandidate"] = [](const json& obj, const Context& c) {
      const json& spec = at(obj, "spec");
      return json::array({name_of(obj), str(at(spec, "leaseName")), str(at(spec, "binaryVersion")),
                          str(at(spec, "emulationVersion")), age(obj, c)});
    };
    p["storage.k8s.io/StorageClass"] = print_storage_class;
    p["storage.k8s.io/VolumeAttributesClass"] = print_volume_attributes_class;
    p["storage.k8s.io/CSIDriver"] = print_csi_driver;
    p["storage.k8s.io/CSINode"] = print_csi_node;
    p["storage.k8s.io/CSIStorageCapacity"] = print_csi_storage_capacity;
    p["storage.k8s.io/VolumeAttachment"] = print_volume_attachment;
    p["scheduling.k8s.io/PriorityClass"] = [](const json& obj, const Context& c) {
      return json::array({name_of(obj), integer(at(obj, "value")),
                          boolean(at(obj, "globalDefault")), age(obj, c),
                          str(at(obj, "preemptionPolicy"))});
    };
    p["node.k8s.io/RuntimeClass"] = [](const json& obj, const Context& c) {
      return json::array({name_of(obj), str(at(obj, "handler")), age(obj, c)});
    };
    p["admissionregistration.k8s.io/MutatingWebhookConfiguration"] = print_webhook_configuration;
    p["admissionregistration.k8s.io/ValidatingWebhookConfiguration"] = print_webhook_configuration;
    p["admissionregistration.k8s.io/ValidatingAdmissionPolicy"] =
        [](const json& o, const Context& c) { return print_admission_policy(o, c, "validations"); };
    p["admissionregistration.k8s.io/MutatingAdmissionPolicy"] =
        [](const json& o, const Context& c) { return print_admission_policy(o, c, "mutations"); };
    p["admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding"] =
        print_admission_policy_binding;
    p["admissionregistration.k8s.io/MutatingAdmissionPolicyBinding"] =
        print_admission_policy_binding;
    p["flowcontrol.apiserver.k8s.io/FlowSchema"] = print_flow_schema;
    p["flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration"] = print_priority_level;
    p["certificates.k8s.io/CertificateSigningRequest"] = print_csr;
    p["certificates.k8s.io/ClusterTrustBundle"] = print_cluster_trust_bundle;
    p["internal.apiserver.k8s.io/StorageVersion"] = print_storage_version;
    p["resource.k8s.io/DeviceClass"] = name_age;
    p["resource.k8s.io/ResourceClaimTemplate"] = name_age;
    p["resource.k8s.io/ResourceClaim"] = print_resource_claim;
    p["resource.k8s.io/ResourceSlice"] = print_resource_slice;
    p["storagemigration.k8s.io/StorageVersionMigration"] = [](const json& obj, const Context&) {
      const json& r = at(obj, "spec", "resource");
      return json::array({name_of(obj), str(at(r, "resource")) + "." + str(at(r, "version")) + "." +
                                            str(at(r, "group"))});
    };
    p["apiregistration.k8s.io/APIService"] = print_api_service;
    return p;
  }();
  return kPrinters;
}

const Printer* printer_for(const Resource& resource) {
  if (resource.group == "autoscaling" && resource.kind == "HorizontalPodAutoscaler") {
    static const Printer kV1 = [](const json& o, const Context& c) {
      return print_hpa(o, c, true);
    };
    static const Printer kV2 = [](const json& o, const Context& c) {
      return print_hpa(o, c, false);
    };
    return resource.version == "v1" ? &kV1 : &kV2;
  }
  const auto& all = printers();
  auto it = all.find(resource.group + "/" + resource.kind);
  return it == all.end() ? nullptr : &it->second;
}

// The columns a resource is served with; no columns means the default table.
std::vector<TableColumn> columns_of(const Resource& resource) {
  if (!resource.table_columns.empty()) {
    return resource.table_columns;
  }
  return {TableColumn{"Name", "string", "name", 0}, TableColumn{"Created At", "date", "", 0}};
}

bool is_default_table(const std::vector<TableColumn>& columns) {
  return columns.size() == 2 && columns[0].name == "Name" && columns[1].name == "Created At" &&
         columns[1].type == "date";
}

// Cells for columns that no printer knows (a kind added later): Name, Age and Created At are
// filled in, anything else is empty text.
json generic_cells(const std::vector<TableColumn>& columns, const json& obj, const Context& c) {
  json cells = json::array();
  for (const auto& col : columns) {
    if (col.name == "Name") {
      cells.push_back(name_of(obj));
    } else if (col.name == "Created At") {
      cells.push_back(format_rfc3339(time_of(at(obj, "metadata", "creationTimestamp"))));
    } else if (col.name == "Age") {
      cells.push_back(age(obj, c));
    } else {
      cells.push_back("");
    }
  }
  return cells;
}

// A custom resource's cell: its column's JSONPath, typed as the column says (no match, or a
// value of another JSON type, is a null cell).
json custom_cell(const TableColumn& col, const json& obj, const Context& c) {
  json value = eval_column_path(col.json_path, obj);
  if (value.is_null()) {
    return nullptr;
  }
  if (col.type == "integer") {
    return value.is_number() ? json(value.get<int64_t>()) : json(nullptr);
  }
  if (col.type == "number") {
    return value.is_number() ? json(value.get<double>()) : json(nullptr);
  }
  if (col.type == "boolean") {
    return value.is_boolean() ? value : json(nullptr);
  }
  if (col.type == "date") {
    if (!value.is_string()) {
      return nullptr;
    }
    auto t = parse_time(value.get<std::string>());
    return t ? since(*t, c) : std::string("<invalid>");
  }
  return value.is_string() ? value.get<std::string>() : go_print(value, false);
}

json cells_for(const Resource& resource, const std::vector<TableColumn>& columns, const json& obj,
               const Context& c) {
  if (resource.custom) {
    json cells = json::array();
    for (const auto& col : columns) {
      cells.push_back(col.json_path.empty() ? json(name_of(obj)) : custom_cell(col, obj, c));
    }
    return cells;
  }
  if (const Printer* p = printer_for(resource)) {
    return (*p)(obj, c);
  }
  return generic_cells(columns, obj, c);
}

// Our own short words; upstream's descriptions are its field documentation.
std::string describe(const TableColumn& col) {
  if (!col.description.empty()) {
    return col.description;
  }
  if (!col.json_path.empty()) {
    return "The value at " + col.json_path + " (JSONPath).";
  }
  if (col.format == "name" && col.name == "Name") {
    return "Name of the object.";
  }
  if (col.name == "Age") {
    return "Time since the object was created.";
  }
  if (col.name == "Created At") {
    return "When the object was created (UTC).";
  }
  return "";
}

json column_definitions(const std::vector<TableColumn>& columns) {
  json defs = json::array();
  for (const auto& col : columns) {
    defs.push_back({{"name", col.name},
                    {"type", col.type},
                    {"format", col.format},
                    {"description", describe(col)},
                    {"priority", col.priority}});
  }
  return defs;
}

json row_object(const json& obj, IncludeObject include) {
  switch (include) {
    case IncludeObject::None:
      return nullptr;  // RawExtension with nothing in it encodes as null
    case IncludeObject::Object:
      return obj;
    case IncludeObject::Metadata:
      break;
  }
  json metadata = at(obj, "metadata");
  return {{"kind", "PartialObjectMetadata"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", metadata.is_object() ? metadata : json::object()}};
}

json build_table(const Resource& resource, const std::vector<const json*>& objects,
                 const TableOptions& options, const std::string& resource_version,
                 const std::string& continue_token, std::optional<int64_t> remaining) {
  const Context c{instant_of(options.now)};
  const auto columns = columns_of(resource);
  const bool has_printer = printer_for(resource) != nullptr;
  const bool default_table = !has_printer && is_default_table(columns);

  json metadata = json::object();
  if (!resource_version.empty()) {
    metadata["resourceVersion"] = resource_version;
  }
  if (!continue_token.empty()) {
    metadata["continue"] = continue_token;
  }
  if (remaining) {
    metadata["remainingItemCount"] = *remaining;
  }

  // The default convertor appends to a nil slice, so an empty list has "rows": null; the
  // printers always return a (possibly empty) slice.
  json rows = default_table ? json(nullptr) : json::array();
  for (const json* obj : objects) {
    json row = {{"cells", cells_for(resource, columns, *obj, c)}};
    if (resource.group.empty() && resource.kind == "Pod") {
      const std::string phase = str(at(*obj, "status", "phase"));
      if (phase == "Succeeded" || phase == "Failed") {
        row["conditions"] =
            json::array({{{"type", "Completed"},
                          {"status", "True"},
                          {"reason", phase},
                          {"message", phase == "Succeeded" ? "Pod completed." : "Pod failed."}}});
      }
    }
    row["object"] = row_object(*obj, options.include);
    if (rows.is_null()) {
      rows = json::array();
    }
    rows.push_back(std::move(row));
  }

  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", std::move(metadata)},
          {"columnDefinitions", options.no_headers ? json(nullptr) : column_definitions(columns)},
          {"rows", std::move(rows)}};
}

}  // namespace

std::optional<IncludeObject> parse_include_object(std::string_view value, std::string& error) {
  if (value.empty() || value == "Metadata") {
    return IncludeObject::Metadata;
  }
  if (value == "None") {
    return IncludeObject::None;
  }
  if (value == "Object") {
    return IncludeObject::Object;
  }
  error = "unrecognized includeObject value: \"" + std::string(value) + "\"";
  return std::nullopt;
}

std::string human_duration(std::chrono::nanoseconds d) {
  using std::to_string;
  const int64_t ns = d.count();
  const int64_t seconds = ns / 1000000000;  // truncates toward zero, as int(d.Seconds()) does
  if (seconds < -1) {
    return "<invalid>";
  }
  if (seconds < 0) {
    return "0s";
  }
  if (seconds < 60 * 2) {
    return to_string(seconds) + "s";
  }
  const int64_t minutes = seconds / 60;
  if (minutes < 10) {
    const int64_t s = seconds % 60;
    return s == 0 ? to_string(minutes) + "m" : to_string(minutes) + "m" + to_string(s) + "s";
  }
  if (minutes < 60 * 3) {
    return to_string(minutes) + "m";
  }
  const int64_t hours = seconds / 3600;
  if (hours < 8) {
    const int64_t m = minutes % 60;
    return m == 0 ? to_string(hours) + "h" : to_string(hours) + "h" + to_string(m) + "m";
  }
  if (hours < 48) {
    return to_string(hours) + "h";
  }
  if (hours < 24 * 8) {
    const int64_t h = hours % 24;
    return h == 0 ? to_string(hours / 24) + "d" : to_string(hours / 24) + "d" + to_string(h) + "h";
  }
  if (hours < 24 * 365 * 2) {
    return to_string(hours / 24) + "d";
  }
  if (hours < 24 * 365 * 8) {
    const int64_t dy = (hours / 24) % 365;
    return dy == 0 ? to_string(hours / 24 / 365) + "y"
                   : to_string(hours / 24 / 365) + "y" + to_string(dy) + "d";
  }
  return to_string(hours / 24 / 365) + "y";
}

nlohmann::json table_cells(const Resource& resource, const nlohmann::json& object,
                           std::chrono::system_clock::time_point now) {
  const Context c{instant_of(now)};
  return cells_for(resource, columns_of(resource), object, c);
}

nlohmann::json to_table(const Resource& resource, const std::vector<nlohmann::json>& objects,
                        const TableOptions& options) {
  std::vector<const json*> ordered;
  ordered.reserve(objects.size());
  for (const auto& o : objects) {
    ordered.push_back(&o);
  }
  if (resource.group == "flowcontrol.apiserver.k8s.io" && resource.kind == "FlowSchema") {
    // printFlowSchemaList sorts by matchingPrecedence, then name.
    std::stable_sort(ordered.begin(), ordered.end(), [](const json* a, const json* b) {
      const int64_t pa = integer(at(*a, "spec", "matchingPrecedence"), 1000);
      const int64_t pb = integer(at(*b, "spec", "matchingPrecedence"), 1000);
      if (pa != pb) {
        return pa < pb;
      }
      return name_of(*a) < name_of(*b);
    });
  }
  return build_table(resource, ordered, options, options.resource_version, options.continue_token,
                     options.remaining_item_count);
}

nlohmann::json to_table_for_object(const Resource& resource, const nlohmann::json& object,
                                   const TableOptions& options) {
  return build_table(resource, {&object}, options, str(at(object, "metadata", "resourceVersion")),
                     "", std::nullopt);
}

}  // namespace apiserver::registry
