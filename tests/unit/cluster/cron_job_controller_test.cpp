// The CronJob controller's syncs (workloads/cron_job_controller) against a scripted API: which
// Jobs it creates and deletes, the status it writes, the events it records (reasons and messages
// as kube-controller-manager v1.32's) and when it looks again.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "client/objects.h"
#include "common/clock.h"
#include "fake_api.h"
#include "workloads/cron_job_controller.h"

using cluster::ObjectPtr;
using cluster::testing::FakeApi;
using nlohmann::json;
using std::chrono::system_clock;
using Strings = std::vector<std::string>;

namespace {

const std::string kJobs = "/apis/batch/v1/namespaces/default/jobs";
const std::string kCronJob = "/apis/batch/v1/namespaces/default/cronjobs/hello";
const std::string kStatus = kCronJob + "/status";
const std::string kEvents = "/api/v1/namespaces/default/events";

system_clock::time_point at(const std::string& rfc3339) {
  auto t = cluster::parse_time(rfc3339);
  REQUIRE(t.has_value());
  return *t;
}

// A CronJob created at midnight on 2024-01-01, with the API's defaults.
json cron_job(const std::string& schedule) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "CronJob"},
          {"metadata",
           {{"name", "hello"},
            {"namespace", "default"},
            {"uid", "cj-uid"},
            {"resourceVersion", "5"},
            {"creationTimestamp", "2024-01-01T00:00:00Z"}}},
          {"spec",
           {{"schedule", schedule},
            {"concurrencyPolicy", "Allow"},
            {"suspend", false},
            {"successfulJobsHistoryLimit", 3},
            {"failedJobsHistoryLimit", 1},
            {"jobTemplate",
             {{"metadata", {{"labels", {{"app", "hello"}}}}},
              {"spec", {{"template", {{"spec", {{"restartPolicy", "Never"}}}}}}}}}}},
          {"status", json::object()}};
}

// A Job of the CronJob: "running", "complete" or "failed", started at `start` ("" for never).
json job(const std::string& name, const std::string& state, const std::string& start = "",
         const std::string& end = "") {
  json j = {{"apiVersion", "batch/v1"},
            {"kind", "Job"},
            {"metadata",
             {{"name", name},
              {"namespace", "default"},
              {"uid", "uid-" + name},
              {"resourceVersion", "7"},
              {"ownerReferences",
               {{{"apiVersion", "batch/v1"},
                 {"kind", "CronJob"},
                 {"name", "hello"},
                 {"uid", "cj-uid"},
                 {"controller", true}}}}}},
            {"status", json::object()}};
  if (!start.empty()) {
    j["status"]["startTime"] = start;
  }
  if (state != "running") {
    j["status"]["conditions"] = {
        {{"type", state == "complete" ? "Complete" : "Failed"}, {"status", "True"}}};
  }
  if (!end.empty()) {
    j["status"]["completionTime"] = end;
  }
  return j;
}

json reference(const json& j) {
  return {{"kind", "Job"},
          {"namespace", "default"},
          {"name", j["metadata"]["name"]},
          {"uid", j["metadata"]["uid"]},
          {"apiVersion", "batch/v1"},
          {"resourceVersion", "7"}};
}

struct Fixture {
  FakeApi api;
  cluster::Client client = api.client();
  common::FakeClock clock;
  cluster::CronJobController controller{client, 1, clock};
  std::vector<ObjectPtr> jobs;

  void add_job(const json& j) { jobs.push_back(std::make_shared<const json>(j)); }
  // Lets the API answer GET and DELETE of the Job, and a create with it.
  void serve_job(const json& j) {
    const std::string path = kJobs + "/" + j["metadata"]["name"].get<std::string>();
    api.answer("GET", path, 200, j);
    api.answer("DELETE", path, 200, j);
  }
  cluster::CronJobController::Outcome sync(const json& cj, const std::string& now) {
    api.answer("PUT", kStatus, 200, cj);
    return controller.sync_for_test(cj, jobs, at(now));
  }
  // "Type Reason: message" of each event recorded, in order.
  Strings events() const {
    Strings out;
    for (const auto& c : api.calls("POST")) {
      if (c.path == kEvents) {
        out.push_back(c.body["type"].get<std::string>() + " " +
                      c.body["reason"].get<std::string>() + ": " +
                      c.body["message"].get<std::string>());
      }
    }
    return out;
  }
  // The names of the Jobs asked for, and of those deleted.
  Strings created() const {
    Strings out;
    for (const auto& c : api.calls("POST")) {
      if (c.path == kJobs) {
        out.push_back(c.body["metadata"]["name"].get<std::string>());
      }
    }
    return out;
  }
  Strings deleted() const {
    Strings out;
    for (const auto& c : api.calls("DELETE")) {
      out.push_back(c.path.substr(kJobs.size() + 1) + " " + c.body.value("propagationPolicy", ""));
    }
    return out;
  }
  // The status of the last status write; null when there was none.
  json written() const {
    const auto puts = api.calls("PUT");
    return puts.empty() ? json() : puts.back().body["status"];
  }
};

std::chrono::milliseconds millis(const cluster::CronJobController::Outcome& o) {
  REQUIRE(o.requeue.has_value());
  return std::chrono::duration_cast<std::chrono::milliseconds>(*o.requeue);
}

}  // namespace

TEST_CASE("a due time makes one Job from the template and records it", "[cluster][cron]") {
  Fixture f;
  const json made = job("hello-28401125", "running");
  f.api.answer("POST", kJobs, 201, made);
  auto outcome = f.sync(cron_job("*/5 * * * *"), "2024-01-01T00:05:30Z");
  CHECK_FALSE(outcome.error);
  CHECK(millis(outcome) == std::chrono::milliseconds(270100));  // to 00:10:00.1
  REQUIRE(f.created() == Strings{"hello-28401125"});
  const json sent = f.api.calls("POST")[0].body;
  CHECK(sent["metadata"]["labels"] == json{{"app", "hello"}});
  CHECK(sent["metadata"]["annotations"] ==
        json{{"batch.kubernetes.io/cronjob-scheduled-timestamp", "2024-01-01T00:05:00Z"}});
  CHECK(sent["metadata"]["ownerReferences"][0]["uid"] == "cj-uid");
  CHECK(sent["spec"] == json{{"template", {{"spec", {{"restartPolicy", "Never"}}}}}});
  CHECK(f.events() == Strings{"Normal SuccessfulCreate: Created job hello-28401125"});
  CHECK(f.written() ==
        json{{"active", {reference(made)}}, {"lastScheduleTime", "2024-01-01T00:05:00Z"}});

  SECTION("the run already made is not made again") {
    Fixture again;
    json cj = cron_job("*/5 * * * *");
    cj["status"] = f.written();
    again.add_job(made);
    auto later = again.sync(cj, "2024-01-01T00:06:00Z");
    CHECK(millis(later) == std::chrono::milliseconds(240100));
    CHECK(again.created().empty());
    CHECK(again.written().is_null());
  }
}

TEST_CASE("of the missed due times only the most recent runs", "[cluster][cron]") {
  Fixture f;
  f.api.answer("POST", kJobs, 201, job("hello-x", "running"));
  SECTION("a few missed: no warning") {
    auto outcome = f.sync(cron_job("*/5 * * * *"), "2024-01-01T00:27:00Z");
    CHECK(f.created() == Strings{"hello-28401145"});  // 00:25
    CHECK(f.events() == Strings{"Normal SuccessfulCreate: Created job hello-x"});
    CHECK(millis(outcome) == std::chrono::milliseconds(180100));
  }
  SECTION("exactly 100 missed: still no warning") {
    f.sync(cron_job("* * * * *"), "2024-01-01T01:40:30Z");
    CHECK(f.created() == Strings{"hello-28401220"});  // 01:40
    CHECK(f.events().size() == 1);
  }
  SECTION("more than 100 missed: TooManyMissedTimes, and the most recent one runs") {
    f.sync(cron_job("* * * * *"), "2024-01-01T03:00:30Z");
    CHECK(f.created() == Strings{"hello-28401300"});  // 03:00
    CHECK(f.events() ==
          Strings{"Warning TooManyMissedTimes: too many missed start times. Set or decrease "
                  ".spec.startingDeadlineSeconds or check clock skew",
                  "Normal SuccessfulCreate: Created job hello-x"});
  }
}

TEST_CASE("startingDeadlineSeconds leaves out the due times older than it", "[cluster][cron]") {
  Fixture f;
  f.api.answer("POST", kJobs, 201, job("hello-x", "running"));
  json cj = cron_job("0 * * * *");  // hourly; 34 runs missed since creation
  SECTION("within the deadline: the run starts, and no warning") {
    cj["spec"]["startingDeadlineSeconds"] = 60;
    f.sync(cj, "2024-01-02T10:00:30Z");
    CHECK(f.created() == Strings{"hello-28403160"});  // 2024-01-02T10:00
  }
  SECTION("past it: nothing starts, no event, the next hour is waited for") {
    cj["spec"]["startingDeadlineSeconds"] = 10;
    auto outcome = f.sync(cj, "2024-01-02T10:00:30Z");
    CHECK(f.created().empty());
    CHECK(f.events().empty());
    CHECK(millis(outcome) == std::chrono::milliseconds(3570100));
  }
  SECTION("it also silences a CronJob that is far behind") {
    cj["spec"]["schedule"] = "* * * * *";
    cj["spec"]["startingDeadlineSeconds"] = 60;
    f.sync(cj, "2024-01-02T10:00:30Z");
    CHECK(f.events() == Strings{"Normal SuccessfulCreate: Created job hello-x"});
  }
}

TEST_CASE("concurrencyPolicy decides what happens to the Job still running", "[cluster][cron]") {
  Fixture f;
  const json old = job("hello-old", "running", "2024-01-01T00:00:10Z");
  f.add_job(old);
  f.serve_job(old);
  const json made = job("hello-28401125", "running");
  f.api.answer("POST", kJobs, 201, made);
  json cj = cron_job("*/5 * * * *");
  cj["status"]["active"] = json::array({reference(old)});
  SECTION("Allow: both run") {
    f.sync(cj, "2024-01-01T00:05:30Z");
    CHECK(f.created() == Strings{"hello-28401125"});
    CHECK(f.written()["active"] == json{reference(old), reference(made)});
  }
  SECTION("Forbid: no new Job while one is active") {
    cj["spec"]["concurrencyPolicy"] = "Forbid";
    auto outcome = f.sync(cj, "2024-01-01T00:05:30Z");
    CHECK(f.created().empty());
    CHECK(f.events() == Strings{"Normal JobAlreadyActive: Not starting job because prior "
                                "execution is running and concurrency policy is Forbid"});
    CHECK(f.written().is_null());
    CHECK(millis(outcome) == std::chrono::milliseconds(270100));
  }
  SECTION("Replace: the active Job is deleted, then the new one made") {
    cj["spec"]["concurrencyPolicy"] = "Replace";
    f.sync(cj, "2024-01-01T00:05:30Z");
    CHECK(f.deleted() == Strings{"hello-old Background"});
    CHECK(f.created() == Strings{"hello-28401125"});
    CHECK(f.events() == Strings{"Normal SuccessfulDelete: Deleted job hello-old",
                                "Normal SuccessfulCreate: Created job hello-28401125"});
    CHECK(f.written()["active"] == json::array({reference(made)}));
  }
  SECTION("Replace: an active Job that cannot be read stops the run") {
    cj["spec"]["concurrencyPolicy"] = "Replace";
    f.api.fail("GET", kJobs + "/hello-old", 500, "InternalError", "etcd is down");
    auto outcome = f.sync(cj, "2024-01-01T00:05:30Z");
    CHECK(outcome.error.has_value());
    CHECK(f.created().empty());
    CHECK(f.events() == Strings{"Warning FailedGet: Get job: etcd is down"});
  }
}

TEST_CASE("a suspended CronJob starts nothing but keeps its status", "[cluster][cron]") {
  Fixture f;
  const json done = job("hello-1", "complete", "2024-01-01T00:00:01Z", "2024-01-01T00:00:09Z");
  f.add_job(done);
  json cj = cron_job("*/5 * * * *");
  cj["spec"]["suspend"] = true;
  cj["status"]["active"] = json::array({reference(done)});
  auto outcome = f.sync(cj, "2024-01-01T00:05:30Z");
  CHECK_FALSE(outcome.requeue);
  CHECK_FALSE(outcome.error);
  CHECK(f.created().empty());
  CHECK(f.events() == Strings{"Normal SawCompletedJob: Saw completed job: hello-1, condition: "
                              "Complete"});
  CHECK(f.written() == json{{"lastSuccessfulTime", "2024-01-01T00:00:09Z"}});
}

TEST_CASE("status.active and lastSuccessfulTime follow the Jobs", "[cluster][cron]") {
  Fixture f;
  json cj = cron_job("0 0 1 1 *");  // not due again this year
  cj["status"]["lastSuccessfulTime"] = "2024-01-01T00:00:20Z";
  const json ok = job("hello-ok", "complete", "2024-01-01T00:00:01Z", "2024-01-01T00:00:30Z");
  const json older = job("hello-older", "complete", "2024-01-01T00:00:01Z", "2024-01-01T00:00:05Z");
  const json bad = job("hello-bad", "failed", "2024-01-01T00:00:02Z");
  const json gone = job("hello-gone", "running");
  for (const json& j : {ok, older, bad}) {
    f.add_job(j);
  }
  cj["status"]["active"] = {reference(ok), reference(bad), reference(gone)};
  cj["spec"]["failedJobsHistoryLimit"] = 5;
  f.sync(cj, "2024-01-01T00:01:00Z");
  CHECK(f.events() == Strings{"Normal SawCompletedJob: Saw completed job: hello-ok, condition: "
                              "Complete",
                              "Normal SawCompletedJob: Saw completed job: hello-bad, condition: "
                              "Failed",
                              "Normal MissingJob: Active job went missing: hello-gone"});
  // The newest completion counts, active or not; the older one does not move it back.
  CHECK(f.written() == json{{"lastSuccessfulTime", "2024-01-01T00:00:30Z"}});
}

TEST_CASE("a Job the controller did not make is reported, unless the live status has it",
          "[cluster][cron]") {
  Fixture f;
  const json stray = job("stray", "running");
  f.add_job(stray);
  json cj = cron_job("0 0 1 1 *");
  SECTION("not in the live status either") {
    f.api.answer("GET", kCronJob, 200, cj);
    f.sync(cj, "2024-01-01T00:01:00Z");
    CHECK(f.events() ==
          Strings{"Warning UnexpectedJob: Saw a job that the controller did not create or "
                  "forgot: stray"});
  }
  SECTION("the informer was behind: the live object is taken") {
    json live = cj;
    live["metadata"]["resourceVersion"] = "6";
    live["status"]["active"] = json::array({reference(stray)});
    f.api.answer("GET", kCronJob, 200, live);
    f.sync(cj, "2024-01-01T00:01:00Z");
    CHECK(f.events().empty());
    CHECK(f.written().is_null());
  }
}

TEST_CASE("finished Jobs beyond the history limits are deleted, oldest first", "[cluster][cron]") {
  Fixture f;
  json cj = cron_job("0 0 1 1 *");
  cj["spec"]["successfulJobsHistoryLimit"] = 1;
  cj["spec"]["failedJobsHistoryLimit"] = 1;
  const std::vector<json> finished = {
      job("ok-c", "complete", "2024-01-01T00:00:03Z", "2024-01-01T00:00:13Z"),
      job("ok-a", "complete", "2024-01-01T00:00:01Z", "2024-01-01T00:00:11Z"),
      job("ok-b", "complete", "2024-01-01T00:00:02Z", "2024-01-01T00:00:12Z"),
      job("bad-never", "failed"),
      job("bad-a", "failed", "2024-01-01T00:00:01Z"),
      job("running", "running", "2024-01-01T00:00:01Z")};
  for (const json& j : finished) {
    f.add_job(j);
    f.serve_job(j);
  }
  cj["status"]["active"] = json::array({reference(finished.back())});
  SECTION("kept: the newest of each") {
    f.sync(cj, "2024-01-01T00:01:00Z");
    // Jobs that never started count as the newest.
    CHECK(f.deleted() == Strings{"ok-a Background", "ok-b Background", "bad-a Background"});
    CHECK(f.events() == Strings{"Normal SuccessfulDelete: Deleted job ok-a",
                                "Normal SuccessfulDelete: Deleted job ok-b",
                                "Normal SuccessfulDelete: Deleted job bad-a"});
    CHECK(f.written()["lastSuccessfulTime"] == "2024-01-01T00:00:13Z");
  }
  SECTION("a limit of zero keeps none, and lastSuccessfulTime is still set") {
    cj["spec"]["successfulJobsHistoryLimit"] = 0;
    f.sync(cj, "2024-01-01T00:01:00Z");
    CHECK(f.deleted().size() == 4);
    CHECK(f.written()["lastSuccessfulTime"] == "2024-01-01T00:00:13Z");
  }
  SECTION("no limits: nothing is deleted") {
    cj["spec"].erase("successfulJobsHistoryLimit");
    cj["spec"].erase("failedJobsHistoryLimit");
    f.sync(cj, "2024-01-01T00:01:00Z");
    CHECK(f.deleted().empty());
  }
  SECTION("a delete the API refuses is reported") {
    f.api.fail("DELETE", kJobs + "/ok-a", 403, "Forbidden", "no");
    f.sync(cj, "2024-01-01T00:01:00Z");
    CHECK(f.events().front() == "Warning FailedDelete: Deleted job: no");
  }
}

TEST_CASE("a Job that exists already joins status.active when it is the controller's",
          "[cluster][cron]") {
  Fixture f;
  f.api.fail("POST", kJobs, 409, "AlreadyExists", "jobs.batch \"hello-28401125\" already exists");
  json existing = job("hello-28401125", "running");
  SECTION("ours: added to the status, no event") {
    f.serve_job(existing);
    auto outcome = f.sync(cron_job("*/5 * * * *"), "2024-01-01T00:05:30Z");
    CHECK(f.events().empty());
    CHECK(f.written()["active"] == json::array({reference(existing)}));
    CHECK(millis(outcome) == std::chrono::milliseconds(270100));
  }
  SECTION("someone else's: left alone, and nothing more to do") {
    existing["metadata"]["ownerReferences"][0]["uid"] = "other";
    f.serve_job(existing);
    auto outcome = f.sync(cron_job("*/5 * * * *"), "2024-01-01T00:05:30Z");
    CHECK_FALSE(outcome.requeue);
    CHECK_FALSE(outcome.error);
    CHECK(f.written().is_null());
  }
}

TEST_CASE("creates the API refuses", "[cluster][cron]") {
  Fixture f;
  SECTION("an error: FailedCreate, and a retry") {
    f.api.fail("POST", kJobs, 500, "InternalError", "etcd is down");
    auto outcome = f.sync(cron_job("*/5 * * * *"), "2024-01-01T00:05:30Z");
    CHECK(outcome.error.has_value());
    CHECK(f.events() == Strings{"Warning FailedCreate: Error creating job: etcd is down"});
  }
  SECTION("a namespace being deleted: no event") {
    f.api.fail("POST", kJobs, 403, "Forbidden",
               "jobs.batch \"hello-28401125\" is forbidden: unable to create new content in "
               "namespace default because it is being terminated");
    auto outcome = f.sync(cron_job("*/5 * * * *"), "2024-01-01T00:05:30Z");
    CHECK(outcome.error.has_value());
    CHECK(f.events().empty());
  }
}

TEST_CASE("schedules and zones the controller cannot use are reported", "[cluster][cron]") {
  Fixture f;
  f.api.answer("POST", kJobs, 201, job("hello-x", "running"));
  auto outcome_of = [&](json cj) { return f.sync(cj, "2024-01-01T00:05:30Z"); };
  SECTION("an unparseable schedule") {
    auto outcome = outcome_of(cron_job("every day"));
    CHECK_FALSE(outcome.requeue);
    CHECK(f.events() == Strings{"Warning UnparseableSchedule: unparseable schedule: \"every "
                                "day\" : expected exactly 5 fields, found 2: [every day]"});
  }
  SECTION("a schedule that never comes") {
    auto outcome = outcome_of(cron_job("59 23 31 2 *"));
    CHECK_FALSE(outcome.requeue);
    CHECK(f.events() == Strings{"Warning InvalidSchedule: invalid schedule: 59 23 31 2 * : time "
                                "difference between two schedules is less than 1 second"});
  }
  SECTION("an unknown time zone") {
    json cj = cron_job("*/5 * * * *");
    cj["spec"]["timeZone"] = "Mars/Base";
    CHECK_FALSE(outcome_of(cj).requeue);
    CHECK(f.events() ==
          Strings{"Warning UnknownTimeZone: invalid timeZone: \"Mars/Base\": unknown time zone "
                  "Mars/Base"});
  }
  SECTION("TZ= in the schedule: a warning, and the run") {
    outcome_of(cron_job("TZ=UTC */5 * * * *"));
    CHECK(f.events() ==
          Strings{"Warning UnsupportedSchedule: CRON_TZ or TZ used in schedule \"TZ=UTC */5 * * * "
                  "*\" is not officially supported, see "
                  "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more "
                  "details",
                  "Normal SuccessfulCreate: Created job hello-x"});
  }
  SECTION("a CronJob being deleted starts nothing") {
    json cj = cron_job("*/5 * * * *");
    cj["metadata"]["deletionTimestamp"] = "2024-01-01T00:05:00Z";
    CHECK_FALSE(outcome_of(cj).requeue);
    CHECK(f.created().empty());
  }
}
