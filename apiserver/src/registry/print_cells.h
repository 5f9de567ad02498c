// The building blocks of server-side printing that many kinds' printers share: tolerant readers
// of stored objects (a missing or mistyped field reads as a Go zero value), Go's time handling
// and the cell formats of kube-apiserver's printers. Pure functions; safe from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace apiserver::registry::cells {

using nlohmann::json;

const json& null_json();

const json& empty_array();

const json& at(const json& j, std::string_view key);

template <typename... Keys>
const json& at(const json& j, std::string_view key, Keys... rest) {
  return at(at(j, key), rest...);
}

const json& arr(const json& j);

bool present(const json& j);

std::string str(const json& j);

int64_t integer(const json& j, int64_t fallback = 0);

bool boolean(const json& j, bool fallback = false);

// resource.Quantity.String() of a stored quantity; the zero Quantity prints "0".
std::string quantity(const json& j);

// intstr.IntOrString.String().
std::string int_or_string(const json& j);

std::string lower(std::string s);

std::string trim_space(const std::string& s);

// The first condition of `type` in a conditions list, or null.
const json& condition(const json& conditions, std::string_view type);

// A time as seconds + nanoseconds since the Unix epoch, so that Go's zero time (year 1), which
// system_clock cannot represent, still parses.
struct Instant {
  int64_t sec = 0;
  int64_t nsec = 0;
};

inline constexpr int64_t kZeroTimeSec = -62135596800;  // 0001-01-01T00:00:00Z, Go's time.Time{}

bool is_zero(const Instant& t);

bool before(const Instant& a, const Instant& b);

// RFC 3339 as metav1.Time and metav1.MicroTime write it: "2006-01-02T15:04:05Z", optional
// fractional seconds, "Z" or a ±hh:mm offset.
std::optional<Instant> parse_time(std::string_view s);

// A stored timestamp; absent, null or unparsable values read as the zero time.
Instant time_of(const json& j);

Instant instant_of(std::chrono::system_clock::time_point tp);

// Go's Time.Sub: b - a, saturating at the limits of time.Duration.
std::chrono::nanoseconds sub(const Instant& b, const Instant& a);

// Time.UTC().Format(time.RFC3339).
std::string format_rfc3339(const Instant& t);

// What a printer may know besides the object: the instant ages are measured from, and the
// version the object is served in (printers whose columns differ by version read it).
struct Context {
  Instant now;
  std::string_view version;
};

// translateTimestampSince / translateMicroTimestampSince.
std::string since(const Instant& t, const Context& c);

std::string since(const json& timestamp, const Context& c);

std::string age(const json& obj, const Context& c);

std::string name_of(const json& obj);

// labels.FormatLabels: "k=v" by key, joined with ","; "<none>" when empty.
std::string format_labels(const json& labels);

// metav1.FormatLabelSelector: "<error>" when unconvertible, "<none>" when it selects nothing
// in particular (null or empty).
std::string format_label_selector(const json& selector);

// Deployment's own spelling: LabelSelectorAsSelector(...).String(), "<invalid>" on error.
std::string deployment_selector(const json& selector);

// layoutContainerCells: names and images joined with ",".
std::pair<std::string, std::string> container_cells(const json& pod_spec);

// listWithMoreString: up to 3 entries, "+ N more..." beyond, "<unset>" when empty.
std::string list_with_more(const std::vector<std::string>& all);

// loadBalancerStatusStringer with wide=true: sorted unique IPs (hostname when no IP).
std::string load_balancer_text(const json& lb_status);

// helper.GetAccessModesAsString: fixed order, duplicates dropped.
std::string access_modes(const json& modes);

std::string int_text(int64_t v);

std::string ratio(int64_t a, int64_t b);

json name_age(const json& obj, const Context& c);

}  // namespace apiserver::registry::cells
