#include "client/event_recorder.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <ctime>
#include <utility>
#include <vector>

#include "apiserver/log.h"
#include "client/objects.h"
#include "common/guard.h"

namespace cluster {
namespace {

constexpr size_t kRemembered = 4096;
const ResourceRef kEvents{"", "v1", "events", true};
const ResourceRef kEventsV1{"events.k8s.io", "v1", "events", true};
// tools/events: a series is written this often, and ends (as does the memory of a single event)
// after this long without a repeat.
constexpr auto kRefreshTime = std::chrono::minutes(30);
constexpr auto kFinishTime = std::chrono::minutes(6);

// "<name>.<nanoseconds in hex>", as both recorders name events.
std::string event_name(const std::string& object_name, std::chrono::system_clock::time_point t) {
  char suffix[32];
  std::snprintf(
      suffix, sizeof suffix, ".%llx",
      static_cast<unsigned long long>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count()));
  return object_name + suffix;
}

// metav1.MicroTime as written: "2024-01-01T00:00:00.000000Z".
std::string micro_time(std::chrono::system_clock::time_point t) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  std::time_t seconds = static_cast<std::time_t>(micros / 1000000);
  long long fraction = micros % 1000000;
  if (fraction < 0) {
    fraction += 1000000;
    --seconds;
  }
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[96];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, fraction);
  return text;
}

// reference.GetReference: what an event says about the object it concerns.
json reference_to(const json& object) {
  json ref = json::object();
  for (const auto& [field, value] :
       {std::pair<const char*, std::string>{"kind", string_at(object, {"kind"})},
        {"namespace", namespace_of(object)},
        {"name", name_of(object)},
        {"uid", uid_of(object)},
        {"apiVersion", string_at(object, {"apiVersion"})},
        {"resourceVersion", string_at(object, {"metadata", "resourceVersion"})}}) {
    if (!value.empty()) {
      ref[field] = value;
    }
  }
  return ref;
}

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) {
    return "localhost";
  }
  return name.data();
}

}  // namespace

EventRecorder::EventRecorder(const Client& client, std::string component, std::string host,
                             const common::Clock& clock)
    : client_(client), component_(std::move(component)), host_(std::move(host)), clock_(clock) {}

void EventRecorder::record(const json& object, const std::string& type, const std::string& reason,
                           const std::string& message) {
  const auto wall = clock_.system_now();
  const std::string now = rfc3339(wall);
  std::string namespace_ = namespace_of(object);
  if (namespace_.empty()) {
    namespace_ = "default";  // events about cluster-scoped objects
  }
  const std::string key = uid_of(object) + "\n" + type + "\n" + reason + "\n" + message;
  std::unique_lock lock(mu_);
  if (auto it = seen_.find(key); it != seen_.end()) {
    Seen& seen = it->second;
    ++seen.count;
    const json patch = {{"count", seen.count}, {"lastTimestamp", now}};
    const std::string path = kEvents.object(seen.namespace_, seen.name);
    lock.unlock();
    if (client_.patch(path, "application/merge-patch+json", patch)) {
      return;
    }
    lock.lock();
    if (auto again = seen_.find(key); again != seen_.end()) {
      order_.erase(again->second.order);
      seen_.erase(again);
    }
  }
  lock.unlock();
  json involved = {{"kind", string_at(object, {"kind"})},
                   {"namespace", namespace_of(object)},
                   {"name", name_of(object)},
                   {"uid", uid_of(object)},
                   {"apiVersion", string_at(object, {"apiVersion"})},
                   {"resourceVersion", string_at(object, {"metadata", "resourceVersion"})}};
  if (involved["namespace"] == "") {
    involved.erase("namespace");
  }
  json source = {{"component", component_}};
  if (!host_.empty()) {
    source["host"] = host_;
  }
  const std::string name = event_name(name_of(object), wall);
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", name}, {"namespace", namespace_}}},
                {"involvedObject", involved},
                {"reason", reason},
                {"message", message},
                {"source", source},
                {"firstTimestamp", now},
                {"lastTimestamp", now},
                {"count", 1},
                {"type", type},
                {"reportingComponent", component_},
                {"reportingInstance", host_}};
  auto created = client_.create(kEvents.collection(namespace_), event);
  if (!created) {
    apiserver::log::info(
        2, component_ + ": event " + reason + " not recorded: " + created.error().message);
    return;
  }
  lock.lock();
  order_.push_back(key);
  seen_[key] = Seen{namespace_, name, 1, std::prev(order_.end())};
  while (order_.size() > kRemembered) {
    seen_.erase(order_.front());
    order_.pop_front();
  }
}

EventSeriesRecorder::EventSeriesRecorder(const Client& client, std::string controller,
                                         std::optional<std::string> instance,
                                         const common::Clock& clock)
    : client_(client),
      controller_(std::move(controller)),
      instance_(instance ? std::move(*instance) : controller_ + "-" + host_name()),
      clock_(clock) {}

EventSeriesRecorder::~EventSeriesRecorder() {
  stop();
}

void EventSeriesRecorder::start() {
  std::lock_guard lock(mu_);
  if (started_ || stopping_) {
    return;
  }
  started_ = true;
  thread_ = std::thread([this] { run(); });
}

void EventSeriesRecorder::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
  }
}

void EventSeriesRecorder::run() {
  auto next_finish = clock_.now() + kFinishTime;
  auto next_refresh = clock_.now() + kRefreshTime;
  while (true) {
    {
      std::unique_lock lock(mu_);
      clock_.wait_until(lock, wake_, std::min(next_finish, next_refresh),
                        [&] { return stopping_; });
      if (stopping_) {
        return;
      }
    }
    const auto now = clock_.now();
    common::run_guarded(
        [&] {
          if (now >= next_finish) {
            next_finish = now + kFinishTime;
            finish_series();
          }
          if (now >= next_refresh) {
            next_refresh = now + kRefreshTime;
            refresh_series();
          }
        },
        [&](std::string&& text) {
          apiserver::log::error(controller_ + ": event series: " + text);
        });
  }
}

void EventSeriesRecorder::record(const json& regarding, const json* related,
                                 const std::string& type, const std::string& reason,
                                 const std::string& action, const std::string& note) {
  const auto wall = clock_.system_now();
  const json about = reference_to(regarding);
  const json also = related != nullptr ? reference_to(*related) : json();
  const std::string key = type + "\n" + action + "\n" + reason + "\n" + controller_ + "\n" +
                          instance_ + "\n" + about.dump() + "\n" + also.dump();
  std::unique_lock lock(mu_);
  if (auto it = cache_.find(key); it != cache_.end()) {
    Cached& seen = it->second;
    ++seen.count;
    seen.last_seen = micro_time(wall);
    seen.last = clock_.now();
    if (seen.count > 2) {
      return;  // counted: the series' count is written later
    }
    json event = seen.event;
    const std::string last_seen = seen.last_seen;
    lock.unlock();
    write_series(std::move(event), 2, last_seen);
    return;
  }
  std::string namespace_ = string_at(about, {"namespace"});
  if (namespace_.empty()) {
    namespace_ = "default";  // events about cluster-scoped objects
  }
  json event = {
      {"apiVersion", "events.k8s.io/v1"},
      {"kind", "Event"},
      {"metadata",
       {{"name", event_name(string_at(about, {"name"}), wall)}, {"namespace", namespace_}}},
      {"eventTime", micro_time(wall)},
      {"reportingController", controller_},
      {"reportingInstance", instance_},
      {"action", action},
      {"reason", reason},
      {"regarding", about},
      {"note", note},
      {"type", type}};
  if (!also.is_null()) {
    event["related"] = also;
  }
  // Remembered before it is written, as upstream does: a repeat correlates with it either way.
  order_.push_back(key);
  cache_[key] = Cached{event, 1, "", clock_.now(), std::prev(order_.end())};
  while (order_.size() > kRemembered) {
    cache_.erase(order_.front());
    order_.pop_front();
  }
  lock.unlock();
  auto created = client_.create(kEventsV1.collection(namespace_), event);
  if (!created) {
    apiserver::log::info(
        2, controller_ + ": event " + reason + " not recorded: " + created.error().message);
  }
}

void EventSeriesRecorder::write_series(json event, int64_t count, const std::string& last_seen) {
  const json series = {{"count", count}, {"lastObservedTime", last_seen}};
  const std::string namespace_ = string_at(event, {"metadata", "namespace"});
  const std::string path = kEventsV1.object(namespace_, name_of(event));
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto patched =
        client_.patch(path, "application/strategic-merge-patch+json", {{"series", series}});
    if (patched) {
      return;
    }
    if (!patched.error().not_found()) {
      apiserver::log::info(2, controller_ + ": event series " + name_of(event) +
                                  " not written: " + patched.error().message);
      return;
    }
    // Gone (its time to live ran out): created again, series and all.
    event["series"] = series;
    auto created = client_.create(kEventsV1.collection(namespace_), event);
    if (created || !created.error().already_exists()) {
      if (!created) {
        apiserver::log::info(2, controller_ + ": event series " + name_of(event) +
                                    " not recorded: " + created.error().message);
      }
      return;
    }
    // Created meanwhile by another writer: patch it.
  }
}

void EventSeriesRecorder::refresh_series() {
  std::vector<std::pair<json, std::pair<int64_t, std::string>>> due;
  {
    std::lock_guard lock(mu_);
    for (const auto& entry : cache_) {
      if (entry.second.count >= 2) {
        due.push_back({entry.second.event, {entry.second.count, entry.second.last_seen}});
      }
    }
  }
  for (auto& d : due) {
    write_series(std::move(d.first), d.second.first, d.second.second);
  }
}

void EventSeriesRecorder::finish_series() {
  std::vector<std::pair<json, std::pair<int64_t, std::string>>> due;
  {
    std::lock_guard lock(mu_);
    const auto cutoff = clock_.now() - kFinishTime;
    for (auto it = cache_.begin(); it != cache_.end();) {
      const Cached& c = it->second;
      if (c.last >= cutoff) {
        ++it;
        continue;
      }
      if (c.count >= 2) {
        due.push_back({c.event, {c.count, c.last_seen}});
      }
      order_.erase(c.order);
      it = cache_.erase(it);
    }
  }
  for (auto& d : due) {
    write_series(std::move(d.first), d.second.first, d.second.second);
  }
}

}  // namespace cluster
