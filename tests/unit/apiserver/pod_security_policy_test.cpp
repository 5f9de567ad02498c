// Pod Security namespace labels, versions, which checks run at a level and version, and the
// aggregated messages.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "admission/plugins/pod_security/evaluation.h"
#include "registry/objects.h"

namespace {

namespace ps = apiserver::admission::pod_security;
using nlohmann::json;

ps::LevelVersion lv(ps::Level level, const std::string& version) {
  return {level, ps::parse_version(version).value()};
}

}  // namespace

TEST_CASE("policy versions parse as upstream's", "[podsecurity]") {
  CHECK(ps::parse_version("latest")->latest);
  CHECK(ps::parse_version("v1.0")->minor == 0);
  CHECK(ps::parse_version("v1.32")->minor == 32);
  CHECK(ps::parse_version("v1.99")->minor == 99);  // future versions are accepted
  for (const char* bad : {"", "v1.", "v1.01", "v2.0", "1.20", "v1.2x", "v1.-1", "Latest",
                          "v1.99999999999999999999"}) {
    CAPTURE(bad);
    CHECK_FALSE(ps::parse_version(bad));
  }
  CHECK(ps::parse_version("v1.9")->older_than(*ps::parse_version("v1.10")));
  CHECK(ps::parse_version("v1.99")->older_than(ps::Version::latest_version()));
  CHECK_FALSE(ps::Version::latest_version().older_than(*ps::parse_version("v1.99")));
}

TEST_CASE("namespace labels resolve to a policy", "[podsecurity]") {
  SECTION("no labels: privileged:latest everywhere") {
    auto r = ps::policy_to_evaluate(json::object());
    CHECK(r.errors.empty());
    CHECK(r.policy.fully_privileged());
    CHECK(r.policy.enforce.str() == "privileged:latest");
  }
  SECTION("each mode with its version") {
    auto r = ps::policy_to_evaluate({{"pod-security.kubernetes.io/enforce", "baseline"},
                                     {"pod-security.kubernetes.io/enforce-version", "v1.20"},
                                     {"pod-security.kubernetes.io/warn", "restricted"},
                                     {"pod-security.kubernetes.io/audit-version", "v1.25"},
                                     {"app", "web"}});
    CHECK(r.errors.empty());
    CHECK(r.policy.enforce.str() == "baseline:v1.20");
    CHECK(r.policy.warn.str() == "restricted:latest");
    CHECK(r.policy.audit.str() == "privileged:v1.25");
  }
  SECTION("values that do not parse: enforce fails closed, audit and warn open") {
    auto r = ps::policy_to_evaluate({{"pod-security.kubernetes.io/enforce", "strict"},
                                     {"pod-security.kubernetes.io/warn", "nope"},
                                     {"pod-security.kubernetes.io/warn-version", "1.2"}});
    CHECK(r.policy.enforce.str() == "restricted:latest");
    CHECK(r.policy.warn.str() == "privileged:latest");
    CHECK(apiserver::registry::render_field_errors(r.errors) ==
          "[metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: \"strict\": must "
          "be one of privileged, baseline, restricted, "
          "metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: \"nope\": must be one "
          "of privileged, baseline, restricted, "
          "metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: \"1.2\": must "
          "be \"latest\" or \"v1.x\"]");
  }
}

TEST_CASE("the checks run at a level and version", "[podsecurity]") {
  using L = ps::Level;
  CHECK(ps::check_ids(lv(L::Privileged, "latest")).empty());
  CHECK(ps::check_ids(lv(L::Baseline, "latest")) ==
        std::vector<std::string>{"appArmorProfile", "capabilities_baseline", "hostNamespaces",
                                 "hostPathVolumes", "hostPorts", "privileged", "procMount",
                                 "seLinuxOptions", "seccompProfile_baseline", "sysctls",
                                 "windowsHostProcess"});
  // Restricted replaces hostPath volumes, baseline capabilities and baseline seccomp.
  CHECK(ps::check_ids(lv(L::Restricted, "latest")) ==
        std::vector<std::string>{"appArmorProfile", "hostNamespaces", "hostPorts", "privileged",
                                 "procMount", "seLinuxOptions", "sysctls", "windowsHostProcess",
                                 "allowPrivilegeEscalation", "capabilities_restricted",
                                 "restrictedVolumes", "runAsNonRoot", "runAsUser",
                                 "seccompProfile_restricted"});
  // Before v1.8, v1.19, v1.22 and v1.23 the restricted checks introduced then are absent and
  // the baseline ones they replace apply.
  CHECK(ps::check_ids(lv(L::Restricted, "v1.7")) ==
        std::vector<std::string>{"appArmorProfile", "capabilities_baseline", "hostNamespaces",
                                 "hostPorts", "privileged", "procMount", "seLinuxOptions",
                                 "seccompProfile_baseline", "sysctls", "windowsHostProcess",
                                 "restrictedVolumes", "runAsNonRoot"});
  CHECK(ps::check_ids(lv(L::Restricted, "v1.22")) ==
        std::vector<std::string>{"appArmorProfile", "hostNamespaces", "hostPorts", "privileged",
                                 "procMount", "seLinuxOptions", "sysctls", "windowsHostProcess",
                                 "allowPrivilegeEscalation", "capabilities_restricted",
                                 "restrictedVolumes", "runAsNonRoot", "seccompProfile_restricted"});
}

TEST_CASE("a version newer than any check evaluates as latest", "[podsecurity]") {
  const json spec = {{"securityContext", {{"sysctls", {{{"name", "net.ipv4.tcp_rmem"}}}}}}};
  auto at = [&](const std::string& v) {
    return ps::aggregate(ps::evaluate_pod(lv(ps::Level::Baseline, v), json::object(), spec));
  };
  CHECK_FALSE(at("v1.31").allowed);
  CHECK(at("v1.32").allowed);
  CHECK(at("v1.40").allowed);
  CHECK(at("latest").allowed);
}

TEST_CASE("results aggregate into upstream's messages", "[podsecurity]") {
  const json spec = {{"hostNetwork", true},
                     {"containers",
                      {{{"name", "c"},
                        {"image", "nginx"},
                        {"securityContext", {{"privileged", true}}},
                        {"ports", {{{"containerPort", 80}, {"hostPort", 80}}}}}}}};
  auto restricted =
      ps::aggregate(ps::evaluate_pod(lv(ps::Level::Restricted, "latest"), json::object(), spec));
  CHECK_FALSE(restricted.allowed);
  CHECK(restricted.forbidden_reason() ==
        "host namespaces, hostPort, privileged, allowPrivilegeEscalation != false, unrestricted "
        "capabilities, runAsNonRoot != true, seccompProfile");
  CHECK(restricted.forbidden_detail() ==
        "host namespaces (hostNetwork=true), hostPort (container \"c\" uses hostPort 80), "
        "privileged (container \"c\" must not set securityContext.privileged=true), "
        "allowPrivilegeEscalation != false (container \"c\" must set "
        "securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "
        "\"c\" must set securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true (pod "
        "or container \"c\" must set securityContext.runAsNonRoot=true), seccompProfile (pod or "
        "container \"c\" must set securityContext.seccompProfile.type to \"RuntimeDefault\" or "
        "\"Localhost\")");
  auto empty_reason = ps::aggregate({{false, "", ""}, {true, "", ""}, {false, "x", ""}});
  CHECK(empty_reason.forbidden_detail() == "unknown forbidden reason, x");
  CHECK(ps::aggregate({{true, "", ""}}).allowed);
}
