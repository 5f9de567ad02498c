// Events, as client-go's two recorders write them.
//
// EventRecorder (tools/record), for kube-controller-manager's controllers and the kubelets:
// core/v1 Events in the object's namespace, named <object>.<unique suffix>, with the component as
// their source. A repeat of the same event (same object, type, reason and message) updates the
// first one's count and lastTimestamp instead of adding another, as the recorder's correlator
// does.
//
// EventSeriesRecorder (tools/events), for kube-scheduler: events.k8s.io/v1 Events with an action,
// a note, reportingController and reportingInstance (<controller>-<host name>). A repeat (same
// type, action, reason, reporting controller and instance, regarding and related objects; the
// note may differ and the first one's is kept) makes the first Event a series: the second
// occurrence patches series {count: 2, lastObservedTime}; later ones are only counted, and the
// count is written every 30 minutes and once more when the series ends (no repeat for 6
// minutes), when the recorder also forgets it. A recorded Event that is not repeated for 6
// minutes is forgotten too.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "client/api_client.h"
#include "common/clock.h"

namespace cluster {

class EventRecorder {
 public:
  // `component`: "replicaset-controller", "default-scheduler", "kubelet"; `host` the node, for
  // kubelets.
  EventRecorder(const Client& client, std::string component, std::string host,
                const common::Clock& clock);

  // `type`: "Normal" or "Warning". Failures are logged, never returned: an event is best effort.
  void record(const json& object, const std::string& type, const std::string& reason,
              const std::string& message);

 private:
  struct Seen {
    std::string namespace_;
    std::string name;
    int64_t count = 1;
    std::list<std::string>::iterator order;
  };

  const Client& client_;
  const std::string component_;
  const std::string host_;
  const common::Clock& clock_;
  std::mutex mu_;
  std::map<std::string, Seen> seen_;  // by object uid, type, reason, message; the newest 4096
  std::list<std::string> order_;      // oldest first
};

class EventSeriesRecorder {
 public:
  // `controller`: "default-scheduler"; `instance`: the reportingInstance (by default
  // <controller>-<this host's name>).
  EventSeriesRecorder(const Client& client, std::string controller,
                      std::optional<std::string> instance, const common::Clock& clock);
  ~EventSeriesRecorder();
  EventSeriesRecorder(const EventSeriesRecorder&) = delete;
  EventSeriesRecorder& operator=(const EventSeriesRecorder&) = delete;

  // Starts the thread that writes the series' counts and ends them. Idempotent.
  void start();
  void stop();

  // `regarding` (and `related`, when not null) are the objects the event is about; `type`
  // "Normal" or "Warning". Failures are logged, never returned: an event is best effort.
  void record(const json& regarding, const json* related, const std::string& type,
              const std::string& reason, const std::string& action, const std::string& note);

  // What the thread does every 30 and every 6 minutes, for tests: writes every series' count;
  // writes and forgets the series not repeated for 6 minutes, forgets such single events.
  void refresh_series();
  void finish_series();

  const std::string& instance() const { return instance_; }

 private:
  struct Cached {
    json event;                      // as created (name, namespace, the first note)
    int64_t count = 1;               // occurrences; a series from 2 on
    std::string last_seen;           // series.lastObservedTime
    common::Clock::time_point last;  // when it last happened, on the clock
    std::list<std::string>::iterator order;
  };

  // Writes the series of `event`: patches it, or creates it again when it is gone.
  void write_series(json event, int64_t count, const std::string& last_seen);
  void run();

  const Client& client_;
  const std::string controller_;
  const std::string instance_;
  const common::Clock& clock_;
  std::mutex mu_;  // protects cache_, order_, stopping_, started_
  std::condition_variable wake_;
  std::map<std::string, Cached> cache_;  // by the isomorphic key; the newest 4096
  std::list<std::string> order_;         // oldest first
  bool stopping_ = false;
  bool started_ = false;
  std::thread thread_;
};

}  // namespace cluster
