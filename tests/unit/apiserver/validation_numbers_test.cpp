// Numbers in client strings that overflow every integer type are validation errors with
// upstream's texts, never exceptions.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "builtin_resources.h"
#include "registry/objects.h"
#include "registry/validation.h"

using apiserver::registry::render_field_errors;
using apiserver::registry::Resource;
using apiserver::registry::validate_create;
using apiserver::testing::resource;
using nlohmann::json;

namespace {

json pod_spec(const char* restart) {
  return {{"containers", {{{"name", "web"}, {"image", "nginx"}}}},
          {"restartPolicy", restart},
          {"dnsPolicy", "ClusterFirst"}};
}

json deployment(const json& unavailable, const json& surge) {
  return {
      {"metadata", {{"name", "web"}, {"namespace", "default"}}},
      {"spec",
       {{"replicas", 1},
        {"selector", {{"matchLabels", {{"app", "web"}}}}},
        {"template", {{"metadata", {{"labels", {{"app", "web"}}}}}, {"spec", pod_spec("Always")}}},
        {"strategy",
         {{"type", "RollingUpdate"},
          {"rollingUpdate", {{"maxUnavailable", unavailable}, {"maxSurge", surge}}}}}}}};
}

json cron_job(const std::string& schedule) {
  return {{"metadata", {{"name", "c"}, {"namespace", "default"}}},
          {"spec",
           {{"schedule", schedule},
            {"concurrencyPolicy", "Allow"},
            {"jobTemplate", {{"spec", {{"template", {{"spec", pod_spec("OnFailure")}}}}}}}}}};
}

const Resource kDeployments = resource("apps", "deployments", "Deployment");
const Resource kCronJobs = resource("batch", "cronjobs", "CronJob");

}  // namespace

TEST_CASE("rolling update percents are checked as upstream prints IntOrString values",
          "[validation]") {
  struct Case {
    json unavailable;
    json surge;
    std::string rendered;
  };
  auto c = GENERATE(values<Case>({
      {"25%", "25%", ""},
      {"25%", "150%", ""},
      {"99999999999999999999%", "25%",
       "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, "
       "IntVal:0, StrVal:\"99999999999999999999%\"}: must not be greater than 100%"},
      {"1", "25%",
       "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, "
       "IntVal:0, StrVal:\"1\"}: a valid percent string must be a numeric string followed by an "
       "ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"},
      {0, "0%",
       "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, "
       "IntVal:0, StrVal:\"\"}: may not be 0 when `maxSurge` is 0"},
      {-1, "25%",
       "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or "
       "equal to 0"},
  }));
  CAPTURE(c.unavailable, c.surge);
  const auto errors = validate_create(kDeployments, deployment(c.unavailable, c.surge));
  if (c.rendered.empty()) {
    CHECK(errors.empty());
  } else {
    CHECK(render_field_errors(errors) == c.rendered);
  }
}

TEST_CASE("a cron schedule field of eleven digits is an invalid schedule", "[validation]") {
  CHECK(render_field_errors(validate_create(kCronJobs, cron_job("99999999999 * * * *"))) ==
        "spec.schedule: Invalid value: \"99999999999 * * * *\": end of range (99999999999) "
        "above maximum (59): 99999999999");
  CHECK(validate_create(kCronJobs, cron_job("*/5 * * * *")).empty());
}
