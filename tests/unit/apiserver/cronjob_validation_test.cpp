// A CronJob's validation (registry/kinds/batch.cpp) as kube-apiserver's validateCronJobSpec: the
// schedule's parser errors, TZ= refused, spec.timeZone, the counts that must not be negative, and
// the order in which the errors come.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "builtin_resources.h"
#include "registry/objects.h"
#include "registry/validation.h"

using apiserver::registry::render_field_errors;
using apiserver::registry::validate_create;
using nlohmann::json;

namespace {

const auto kCronJobs = apiserver::testing::resource("batch", "cronjobs", "CronJob");

json cron_job(const std::string& schedule) {
  const json pod_spec = {{"containers", {{{"name", "web"}, {"image", "nginx"}}}},
                         {"restartPolicy", "OnFailure"},
                         {"dnsPolicy", "ClusterFirst"}};
  return {{"metadata", {{"name", "c"}, {"namespace", "default"}}},
          {"spec",
           {{"schedule", schedule},
            {"concurrencyPolicy", "Allow"},
            {"jobTemplate", {{"spec", {{"template", {{"spec", pod_spec}}}}}}}}}};
}

// The errors as kube-apiserver words them; "" for none.
std::string errors_of(const json& object) {
  const auto errors = validate_create(kCronJobs, object);
  return errors.empty() ? "" : render_field_errors(errors);
}

}  // namespace

TEST_CASE("a CronJob's schedule is checked by robfig/cron's parser", "[registry][cronjob]") {
  CHECK(errors_of(cron_job("*/5 * * * *")).empty());
  CHECK(errors_of(cron_job("@every 1h30m")).empty());
  CHECK(errors_of(cron_job("0 0 * * 7")) ==
        "spec.schedule: Invalid value: \"0 0 * * 7\": end of range (7) above maximum (6): 7");
  CHECK(errors_of(cron_job("")) == "spec.schedule: Required value");
}

TEST_CASE("TZ= and CRON_TZ= in a schedule are refused as kube-apiserver refuses them",
          "[registry][cronjob]") {
  CHECK(errors_of(cron_job("TZ=UTC 0 * * * *")) ==
        "spec.schedule: Invalid value: \"TZ=UTC 0 * * * *\": cannot use TZ or CRON_TZ in "
        "schedule, use timeZone field instead");
  // A zone that does not load is the parser's error first, then the same refusal.
  CHECK(errors_of(cron_job("CRON_TZ=Mars/Base 0 * * * *")) ==
        "[spec.schedule: Invalid value: \"CRON_TZ=Mars/Base 0 * * * *\": provided bad location "
        "Mars/Base: unknown time zone Mars/Base, spec.schedule: Invalid value: \"CRON_TZ=Mars/Base "
        "0 * * * *\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead]");
  // "TZ" anywhere counts.
  CHECK(errors_of(cron_job("0 0 * * TZ")) ==
        "[spec.schedule: Invalid value: \"0 0 * * TZ\": failed to parse int from TZ: strconv.Atoi: "
        "parsing \"TZ\": invalid syntax, spec.schedule: Invalid value: \"0 0 * * TZ\": cannot use "
        "TZ or CRON_TZ in schedule, use timeZone field instead]");
}

TEST_CASE("spec.timeZone is an IANA name the server can load", "[registry][cronjob]") {
  auto zone_errors = [](const std::string& zone) {
    json cj = cron_job("0 9 * * *");
    cj["spec"]["timeZone"] = zone;
    return errors_of(cj);
  };
  CHECK(zone_errors("UTC").empty());
  CHECK(zone_errors("") ==
        "spec.timeZone: Invalid value: \"\": timeZone must be nil or non-empty string");
  CHECK(zone_errors("Local") ==
        "spec.timeZone: Invalid value: \"Local\": timeZone must be an explicit time zone as "
        "defined in https://www.iana.org/time-zones");
  // Go's LoadLocation finds no "local" either: two errors.
  CHECK(zone_errors("local") ==
        "[spec.timeZone: Invalid value: \"local\": timeZone must be an explicit time zone as "
        "defined in https://www.iana.org/time-zones, spec.timeZone: Invalid value: \"local\": "
        "unknown time zone local]");
  CHECK(zone_errors("../etc/passwd") ==
        "spec.timeZone: Invalid value: \"../etc/passwd\": unknown time zone ../etc/passwd");
  CHECK(zone_errors("-Europe") ==
        "spec.timeZone: Invalid value: \"-Europe\": unknown time zone -Europe");
  CHECK(zone_errors("Europe/") ==
        "spec.timeZone: Invalid value: \"Europe/\": unknown time zone Europe/");
  CHECK(zone_errors("Europe/ThisNameIsTooLong") ==
        "spec.timeZone: Invalid value: \"Europe/ThisNameIsTooLong\": unknown time zone "
        "Europe/ThisNameIsTooLong");
  CHECK(zone_errors("Mars/Base") ==
        "spec.timeZone: Invalid value: \"Mars/Base\": unknown time zone Mars/Base");
  // Names that pass the naming rules but not LoadLocation's own check.
  CHECK(zone_errors("Mars/a..b") ==
        "spec.timeZone: Invalid value: \"Mars/a..b\": time: invalid location name");
}

TEST_CASE("a CronJob's counts must not be negative, and errors come in upstream's order",
          "[registry][cronjob]") {
  json cj = cron_job("0 9 * * *");
  cj["metadata"]["name"] = std::string(53, 'c');
  cj["spec"]["startingDeadlineSeconds"] = -1;
  cj["spec"]["successfulJobsHistoryLimit"] = -2;
  cj["spec"]["failedJobsHistoryLimit"] = -3;
  cj["spec"]["concurrencyPolicy"] = "Sometimes";
  cj["spec"]["schedule"] = "60 * * * *";
  CHECK(errors_of(cj) ==
        "[spec.schedule: Invalid value: \"60 * * * *\": end of range (60) above maximum (59): 60, "
        "spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0, "
        "spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values: \"Allow\", "
        "\"Forbid\", \"Replace\", "
        "spec.successfulJobsHistoryLimit: Invalid value: -2: must be greater than or equal to 0, "
        "spec.failedJobsHistoryLimit: Invalid value: -3: must be greater than or equal to 0, "
        "metadata.name: Invalid value: \"" +
            std::string(53, 'c') + "\": must be no more than 52 characters]");
}
