// The CronJob controller's pure parts (workloads/cron_job_utils, and its clock): due times, the
// delay to the next one, the text a schedule is parsed from, the Job made for a run.
#include "workloads/cron_job_utils.h"

#include <catch2/catch.hpp>

#include "client/objects.h"
#include "workloads/cron_job_controller.h"

using cluster::MissedSchedules;
using nlohmann::json;
using std::chrono::system_clock;

namespace {

system_clock::time_point at(const std::string& rfc3339) {
  auto t = cluster::parse_time(rfc3339);
  REQUIRE(t.has_value());
  return *t;
}

common::CronSchedule schedule(const std::string& spec) {
  auto parsed = common::parse_cron_schedule(spec);
  REQUIRE(parsed.ok());
  return *parsed;
}

json cron_job(const json& spec, const json& status = json::object()) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "CronJob"},
          {"metadata", {{"name", "hello"}, {"namespace", "default"}, {"uid", "cj-uid"}}},
          {"spec", spec},
          {"status", status}};
}

}  // namespace

TEST_CASE("the most recent due time, and how many were missed", "[cluster][cron]") {
  const auto created = at("2024-01-01T00:00:00Z");
  auto times = [&](const json& cj, const std::string& now, const std::string& spec,
                   bool deadline = true) {
    return cluster::most_recent_schedule_time(cj, created, at(now), schedule(spec), deadline);
  };
  const json plain = cron_job({{"schedule", "*/5 * * * *"}});
  auto none = times(plain, "2024-01-01T00:04:59Z", "*/5 * * * *");
  CHECK_FALSE(none.most_recent);
  CHECK(none.missed == MissedSchedules::None);
  CHECK(none.earliest == created);
  // Just one due: it is the most recent, and counts as none missed.
  auto one = times(plain, "2024-01-01T00:07:00Z", "*/5 * * * *");
  CHECK(one.most_recent == at("2024-01-01T00:05:00Z"));
  CHECK(one.missed == MissedSchedules::None);
  auto few = times(plain, "2024-01-01T00:27:00Z", "*/5 * * * *");
  CHECK(few.most_recent == at("2024-01-01T00:25:00Z"));
  CHECK(few.missed == MissedSchedules::Few);
  // 100 missed minutes are few; 101 are many.
  CHECK(times(plain, "2024-01-01T01:40:30Z", "* * * * *").missed == MissedSchedules::Few);
  auto many = times(plain, "2024-01-01T01:41:30Z", "* * * * *");
  CHECK(many.missed == MissedSchedules::Many);
  CHECK(many.most_recent == at("2024-01-01T01:41:00Z"));
  // Irregular intervals: the walk back finds the right one (the first interval is 4 hours, the
  // weekend's is longer).
  auto irregular = times(plain, "2024-01-08T07:00:00Z", "30 6-16/4 * * 1-5");
  CHECK(irregular.most_recent == at("2024-01-08T06:30:00Z"));
  // From lastScheduleTime, when there is one.
  const json scheduled =
      cron_job({{"schedule", "*/5 * * * *"}}, {{"lastScheduleTime", "2024-01-01T00:20:00Z"}});
  auto since_last = times(scheduled, "2024-01-01T00:27:00Z", "*/5 * * * *");
  CHECK(since_last.earliest == at("2024-01-01T00:20:00Z"));
  CHECK(since_last.most_recent == at("2024-01-01T00:25:00Z"));
  // startingDeadlineSeconds moves the earliest time up, when it counts.
  const json deadline = cron_job({{"schedule", "0 * * * *"}, {"startingDeadlineSeconds", 10}});
  auto late = times(deadline, "2024-01-02T10:00:30Z", "0 * * * *");
  CHECK_FALSE(late.most_recent);
  CHECK(late.earliest == at("2024-01-02T10:00:20Z"));
  auto without = times(deadline, "2024-01-02T10:00:30Z", "0 * * * *", false);
  CHECK(without.most_recent == at("2024-01-02T10:00:00Z"));
  // A schedule that never comes.
  auto never = times(plain, "2024-01-02T00:00:00Z", "59 23 31 2 *");
  CHECK_FALSE(never.most_recent);
  CHECK(never.error == "time difference between two schedules is less than 1 second");
}

TEST_CASE("the delay to the next due time, 100 ms late", "[cluster][cron]") {
  const auto created = at("2024-01-01T00:00:00Z");
  auto delay = [&](const json& cj, const std::string& now, const std::string& spec) {
    return cluster::next_schedule_delay(cj, created, at(now), schedule(spec));
  };
  using std::chrono::milliseconds;
  const json plain = cron_job({{"schedule", "*/5 * * * *"}});
  CHECK(delay(plain, "2024-01-01T00:01:00Z", "*/5 * * * *") == milliseconds(240100));
  CHECK(delay(plain, "2024-01-01T00:27:00Z", "*/5 * * * *") == milliseconds(180100));
  // The deadline does not count here: the next time after the most recent one.
  const json deadline = cron_job({{"schedule", "0 * * * *"}, {"startingDeadlineSeconds", 10}});
  CHECK(delay(deadline, "2024-01-02T10:00:30Z", "0 * * * *") == milliseconds(3570100));
  // No next time: look again at once.
  CHECK(delay(plain, "2024-01-02T00:00:00Z", "59 23 31 2 *") == system_clock::duration::zero());
}

TEST_CASE("the schedule is parsed with spec.timeZone as a TZ= prefix", "[cluster][cron]") {
  CHECK(cluster::format_schedule(cron_job({{"schedule", "0 9 * * *"}})) == "0 9 * * *");
  CHECK(cluster::format_schedule(cron_job({{"schedule", "0 9 * * *"}, {"timeZone", "UTC"}})) ==
        "TZ=UTC 0 9 * * *");
  // A zone that does not load, or a schedule with its own, is left as it is.
  CHECK(cluster::format_schedule(
            cron_job({{"schedule", "0 9 * * *"}, {"timeZone", "Mars/Base"}})) == "0 9 * * *");
  CHECK(cluster::format_schedule(cron_job({{"schedule", "CRON_TZ=UTC 0 9 * * *"},
                                           {"timeZone", "UTC"}})) == "CRON_TZ=UTC 0 9 * * *");
}

TEST_CASE("a run's Job is named after its minute and made from the template", "[cluster][cron]") {
  CHECK(cluster::cron_job_name("hello", at("2024-01-01T00:05:00Z")) == "hello-28401125");
  const json cj = cron_job(
      {{"schedule", "*/5 * * * *"},
       {"jobTemplate",
        {{"metadata", {{"annotations", {{"team", "a"}}}}}, {"spec", {{"backoffLimit", 2}}}}}});
  const json job = cluster::job_from_template(cj, at("2024-01-01T00:05:00Z"), common::TimeZone());
  CHECK(job ==
        json{{"apiVersion", "batch/v1"},
             {"kind", "Job"},
             {"metadata",
              {{"name", "hello-28401125"},
               {"namespace", "default"},
               {"annotations",
                {{"team", "a"},
                 {"batch.kubernetes.io/cronjob-scheduled-timestamp", "2024-01-01T00:05:00Z"}}},
               {"ownerReferences",
                {{{"apiVersion", "batch/v1"},
                  {"kind", "CronJob"},
                  {"name", "hello"},
                  {"uid", "cj-uid"},
                  {"controller", true},
                  {"blockOwnerDeletion", true}}}}}},
             {"spec", {{"backoffLimit", 2}}}});
  CHECK(cluster::rfc1123z(at("2024-03-10T07:05:09Z")) == "Sun, 10 Mar 2024 07:05:09 +0000");
}

TEST_CASE("the CronJob controller's clock runs N times faster from the start", "[cluster][cron]") {
  cluster::CronClock clock{at("2024-01-01T00:00:00Z"), 60};
  CHECK(cluster::rfc3339(clock.virtual_time(at("2024-01-01T00:00:05Z"))) == "2024-01-01T00:05:00Z");
  CHECK(cluster::rfc3339(clock.virtual_time(at("2024-01-01T00:01:00Z"))) == "2024-01-01T01:00:00Z");
  // Before the start, time is what it was.
  CHECK(cluster::rfc3339(clock.virtual_time(at("2023-12-31T23:00:00Z"))) == "2023-12-31T23:00:00Z");
  CHECK(clock.real_delay(std::chrono::minutes(5)) == std::chrono::seconds(5));
  CHECK(clock.real_delay(-std::chrono::seconds(1)) == common::Clock::duration::zero());
  cluster::CronClock real{at("2024-01-01T00:00:00Z"), 1};
  CHECK(real.real_delay(std::chrono::minutes(5)) == std::chrono::minutes(5));
}
