// The queue of nodes waiting for their NoExecute taint in one zone, as kube-controller-manager's
// rate-limited timed queue: each node is queued once (a node tainted already stays in the set
// until removed, so it is not queued again), and a token bucket (burst 1) lets one through per
// 1/rate seconds: --node-eviction-rate 0.1 taints at most one node of a zone every 10 s. A rate
// of 0 lets none through (a disrupted zone, or every zone down).
//
// Worked example (rate 0.1, t in seconds):
//   t=0  add(node-1), add(node-4)   queue [node-1 node-4]
//   t=0  next() -> node-1           the bucket's token taken; done(node-1)
//   t=0  next() -> nullopt          wake_at() says t=10
//   t=10 next() -> node-4
//
// Not thread-safe: the node lifecycle controller's worker alone uses it.
#pragma once

#include <chrono>
#include <deque>
#include <optional>
#include <set>
#include <string>

#include "common/clock.h"

namespace cluster {

class ZoneTainter {
 public:
  using time_point = common::Clock::time_point;

  ZoneTainter(double rate, time_point now);

  // Queues the node unless it is in the set already; false then.
  bool add(const std::string& node);
  // Takes the node out of the queue and the set; true when it was in the set.
  bool remove(const std::string& node);
  // The node's taint was written (or is not needed): out of the queue, still in the set.
  void done(const std::string& node);
  // The node's taint could not be written: it stays first, due again at `at`.
  void retry(const std::string& node, time_point at);

  // A new rate (nodes per second), as SwapLimiter: the same rate changes nothing; otherwise the
  // bucket starts full, unless the old one was empty then.
  void set_rate(double rate, time_point now);
  double rate() const { return rate_; }

  // The first queued node when it is due and the bucket has a token (taken), else nullopt.
  std::optional<std::string> next(time_point now);
  // When next() could give a node: nullopt when nothing is queued or the rate is 0.
  std::optional<time_point> wake_at(time_point now) const;
  bool empty() const { return queue_.empty(); }

 private:
  struct Entry {
    std::string node;
    time_point due;
  };
  double tokens_at(time_point now) const;

  double rate_;
  double tokens_;  // in [0, 1] at refilled_
  time_point refilled_;
  std::deque<Entry> queue_;
  std::set<std::string> set_;
};

}  // namespace cluster
