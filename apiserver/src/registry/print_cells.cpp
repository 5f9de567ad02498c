#include "registry/print_cells.h"

#include <set>

#include "common/rfc3339.h"
#include "registry/go_text.h"
#include "registry/selectors.h"
#include "registry/table.h"

namespace apiserver::registry::cells {

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

const json& arr(const json& j) {
  return j.is_array() ? j : empty_array();
}

bool present(const json& j) {
  return !j.is_null();
}

std::string str(const json& j) {
  return j.is_string() ? j.get<std::string>() : std::string();
}

int64_t integer(const json& j, int64_t fallback) {
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

bool boolean(const json& j, bool fallback) {
  return j.is_boolean() ? j.get<bool>() : fallback;
}

std::string quantity(const json& j) {
  if (j.is_string()) {
    return j.get<std::string>();
  }
  if (j.is_number()) {
    return j.dump();
  }
  return "0";
}

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

const json& condition(const json& conditions, std::string_view type) {
  for (const auto& c : arr(conditions)) {
    if (str(at(c, "type")) == type) {
      return c;
    }
  }
  return null_json();
}

bool is_zero(const Instant& t) {
  return t.sec == kZeroTimeSec && t.nsec == 0;
}

bool before(const Instant& a, const Instant& b) {
  return a.sec < b.sec || (a.sec == b.sec && a.nsec < b.nsec);
}

std::optional<Instant> parse_time(std::string_view s) {
  auto parsed = common::parse_rfc3339(s);
  if (!parsed) {
    return std::nullopt;
  }
  return Instant{parsed->seconds, parsed->nanos};
}

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

std::string format_rfc3339(const Instant& t) {
  return common::format_rfc3339(t.sec).value_or("");
}

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

std::string format_labels(const json& labels) {
  std::vector<std::string> parts;
  if (labels.is_object()) {
    for (auto it = labels.begin(); it != labels.end(); ++it) {  // keys iterate sorted
      parts.push_back(it.key() + "=" + str(it.value()));
    }
  }
  return parts.empty() ? "<none>" : join(parts, ",");
}

std::string format_label_selector(const json& selector) {
  auto parsed = LabelSelector::from_json(selector);
  if (!parsed) {
    return "<error>";
  }
  auto text = parsed->to_string();
  return text.empty() ? "<none>" : text;
}

std::string deployment_selector(const json& selector) {
  auto parsed = LabelSelector::from_json(selector);
  return parsed ? parsed->to_string() : "<invalid>";
}

std::pair<std::string, std::string> container_cells(const json& pod_spec) {
  std::vector<std::string> names;
  std::vector<std::string> images;
  for (const auto& c : arr(at(pod_spec, "containers"))) {
    names.push_back(str(at(c, "name")));
    images.push_back(str(at(c, "image")));
  }
  return {join(names, ","), join(images, ",")};
}

std::string list_with_more(const std::vector<std::string>& all) {
  constexpr size_t kMax = 3;
  if (all.size() > kMax) {
    std::vector<std::string> head(all.begin(), all.begin() + kMax);
    return join(head, ",") + " + " + std::to_string(all.size() - kMax) + " more...";
  }
  auto text = join(all, ",");
  return text.empty() ? "<unset>" : text;
}

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

json name_age(const json& obj, const Context& c) {
  return json::array({name_of(obj), age(obj, c)});
}

}  // namespace apiserver::registry::cells
