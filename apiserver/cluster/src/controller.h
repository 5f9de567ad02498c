// A controller, as kube-controller-manager's: informers tell it what changed, it queues the keys
// of the objects to look at, and one worker takes each key from the queue and reconciles it
// (sync), comparing the desired state with the actual one and writing through the API. A sync
// that fails is retried with client-go's per-key backoff; one that wants another look later
// (a deadline, a delay) asks for it with requeue_after.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "common/clock.h"
#include "common/work_queue.h"

namespace cluster {

class Controller {
 public:
  Controller(std::string name, const common::Clock& clock);
  virtual ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Its --controllers name: "replicaset-controller".
  const std::string& name() const { return name_; }
  // Starts the controller's own informers (listing before it returns); before run().
  virtual void start() {}
  // Stops the informers that could still be busy (a first list retrying); before stop().
  virtual void stop_informers() {}
  // Starts the worker (the informers were started and synced before).
  void run();
  // Shuts the queue down and joins the worker. Idempotent.
  void stop();

  common::WorkQueue& queue() { return queue_; }
  const common::WorkQueue& queue() const { return queue_; }

 protected:
  // Reconciles the object named `key` ("ns/name"). An error (the text is logged) retries the
  // key with a backoff.
  virtual std::optional<std::string> sync(const std::string& key) = 0;
  // Looks at `key` again after `delay` (on the controller's clock).
  void requeue_after(const std::string& key, common::Clock::duration delay);
  const common::Clock& clock() const { return clock_; }

 private:
  void work();

  const std::string name_;
  const common::Clock& clock_;
  common::WorkQueue queue_;
  std::thread worker_;
};

}  // namespace cluster
