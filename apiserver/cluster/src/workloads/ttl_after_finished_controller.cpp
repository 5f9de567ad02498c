#include "workloads/ttl_after_finished_controller.h"

#include "client/objects.h"

namespace cluster {
namespace {

const ResourceRef kJobs{"batch", "v1", "jobs", true};

// When the job finished: the time its Complete or Failed condition turned True.
std::optional<std::chrono::system_clock::time_point> finished_at(const json& job) {
  for (const char* type : {"Complete", "Failed"}) {
    if (condition_true(job, type)) {
      return parse_time(string_at(*condition(job, type), {"lastTransitionTime"}));
    }
  }
  return std::nullopt;
}

}  // namespace

TtlAfterFinishedController::TtlAfterFinishedController(const Client& client,
                                                       const common::Clock& clock)
    : Controller("ttl-after-finished-controller", clock),
      client_(client),
      jobs_(client, kJobs, {}, clock) {
  auto changed = [this](const json& j) {
    if (at(j, {"spec", "ttlSecondsAfterFinished"}) != nullptr && finished_at(j)) {
      queue().add(Informer::key_of(j));
    }
  };
  jobs_.add_handlers({.added = changed,
                      .updated = [changed](const json&, const json& j) { changed(j); },
                      .deleted = {}});
}

TtlAfterFinishedController::~TtlAfterFinishedController() {
  stop();
  jobs_.stop();
}

void TtlAfterFinishedController::start() {
  jobs_.start();
}

std::optional<std::string> TtlAfterFinishedController::sync(const std::string& key) {
  const size_t slash = key.find('/');
  ObjectPtr job = jobs_.get(key.substr(0, slash), key.substr(slash + 1));
  if (job == nullptr || being_deleted(*job)) {
    return std::nullopt;
  }
  const int64_t ttl = int_at(*job, {"spec", "ttlSecondsAfterFinished"}, -1);
  const auto finished = finished_at(*job);
  if (ttl < 0 || !finished) {
    return std::nullopt;
  }
  const auto expires = *finished + std::chrono::seconds(ttl);
  const auto wall = clock().system_now();
  if (wall < expires) {
    requeue_after(key, std::chrono::duration_cast<common::Clock::duration>(expires - wall) +
                           std::chrono::milliseconds(10));
    return std::nullopt;
  }
  json options = {{"apiVersion", "v1"},
                  {"kind", "DeleteOptions"},
                  {"propagationPolicy", "Foreground"},
                  {"preconditions", {{"uid", uid_of(*job)}}}};
  auto removed = client_.remove(kJobs.object(namespace_of(*job), name_of(*job)), options);
  if (!removed && !removed.error().not_found() && removed.error().code != 409) {
    return "deleting job " + key + ": " + removed.error().message;
  }
  return std::nullopt;
}

}  // namespace cluster
