#include "client/event_recorder.h"

#include <cstdio>

#include "apiserver/log.h"
#include "client/objects.h"

namespace cluster {
namespace {

constexpr size_t kRemembered = 4096;
const ResourceRef kEvents{"", "v1", "events", true};

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
  char suffix[32];
  std::snprintf(
      suffix, sizeof suffix, ".%llx",
      static_cast<unsigned long long>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(wall.time_since_epoch()).count()));
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
  const std::string name = name_of(object) + suffix;
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

}  // namespace cluster
