// Each Pod Security check of v1.32, allowed and forbidden, with upstream's reason and detail
// texts word for word.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "admission/plugins/pod_security/check.h"

namespace {

using apiserver::admission::pod_security::baseline_checks;
using apiserver::admission::pod_security::Check;
using apiserver::admission::pod_security::CheckResult;
using apiserver::admission::pod_security::restricted_checks;
using nlohmann::json;

// Runs check `id` as in force at v1.<minor> over a pod `spec` (and `metadata`).
CheckResult run(const std::string& id, int minor, const json& spec,
                const json& metadata = json::object()) {
  for (const auto* list : {&baseline_checks(), &restricted_checks()}) {
    for (const Check& check : *list) {
      if (check.id != id) {
        continue;
      }
      const apiserver::admission::pod_security::VersionedCheck* found = nullptr;
      for (const auto& v : check.versions) {
        if (v.since <= minor) {
          found = &v;
        }
      }
      REQUIRE(found != nullptr);
      return found->check(metadata, spec);
    }
  }
  FAIL("no check " << id);
  return {};
}

json containers(json list) {
  return {{"containers", std::move(list)}};
}

void forbids(const CheckResult& r, const std::string& reason, const std::string& detail) {
  CHECK_FALSE(r.allowed);
  CHECK(r.reason == reason);
  CHECK(r.detail == detail);
}

}  // namespace

TEST_CASE("hostProcess forbids Windows host process pods and containers", "[podsecurity]") {
  CHECK(run("windowsHostProcess", 32, containers({{{"name", "a"}}})).allowed);
  CHECK(run("windowsHostProcess", 32,
            {{"securityContext", {{"windowsOptions", {{"hostProcess", false}}}}}})
            .allowed);
  forbids(
      run("windowsHostProcess", 32,
          {{"securityContext", {{"windowsOptions", {{"hostProcess", true}}}}},
           {"containers",
            {{{"name", "a"}, {"securityContext", {{"windowsOptions", {{"hostProcess", true}}}}}},
             {{"name", "b"},
              {"securityContext", {{"windowsOptions", {{"hostProcess", true}}}}}}}}}),
      "hostProcess",
      "pod and containers \"a\", \"b\" must not set "
      "securityContext.windowsOptions.hostProcess=true");
}

TEST_CASE("host namespaces are named in upstream's order", "[podsecurity]") {
  CHECK(run("hostNamespaces", 0, {{"hostNetwork", false}}).allowed);
  forbids(run("hostNamespaces", 0, {{"hostIPC", true}, {"hostPID", true}, {"hostNetwork", true}}),
          "host namespaces", "hostNetwork=true, hostPID=true, hostIPC=true");
  forbids(run("hostNamespaces", 32, {{"hostPID", true}}), "host namespaces", "hostPID=true");
}

TEST_CASE("privileged containers, init and ephemeral ones included", "[podsecurity]") {
  CHECK(run("privileged", 32,
            containers({{{"name", "a"}, {"securityContext", {{"privileged", false}}}}}))
            .allowed);
  const json spec = {
      {"initContainers", {{{"name", "i"}, {"securityContext", {{"privileged", true}}}}}},
      {"containers", {{{"name", "c"}, {"securityContext", {{"privileged", true}}}}}},
      {"ephemeralContainers", {{{"name", "e"}, {"securityContext", {{"privileged", true}}}}}}};
  forbids(run("privileged", 32, spec), "privileged",
          "containers \"i\", \"c\", \"e\" must not set securityContext.privileged=true");
  forbids(run("privileged", 32,
              containers({{{"name", "x"}, {"securityContext", {{"privileged", true}}}}})),
          "privileged", "container \"x\" must not set securityContext.privileged=true");
}

TEST_CASE("baseline capabilities allow only the default set", "[podsecurity]") {
  CHECK(run("capabilities_baseline", 32,
            containers({{{"name", "a"},
                         {"securityContext", {{"capabilities", {{"add", {"CHOWN", "KILL"}}}}}}}}))
            .allowed);
  forbids(run("capabilities_baseline", 32,
              containers({{{"name", "a"},
                           {"securityContext",
                            {{"capabilities", {{"add", {"SYS_ADMIN", "CHOWN", "NET_RAW"}}}}}}},
                          {{"name", "b"},
                           {"securityContext", {{"capabilities", {{"add", {"NET_RAW"}}}}}}}})),
          "non-default capabilities",
          "containers \"a\", \"b\" must not include \"NET_RAW\", \"SYS_ADMIN\" in "
          "securityContext.capabilities.add");
}

TEST_CASE("hostPath volumes and host ports", "[podsecurity]") {
  CHECK(run("hostPathVolumes", 0, {{"volumes", {{{"name", "e"}, {"emptyDir", json::object()}}}}})
            .allowed);
  forbids(run("hostPathVolumes", 0,
              {{"volumes",
                {{{"name", "h"}, {"hostPath", {{"path", "/"}}}},
                 {{"name", "e"}, {"emptyDir", json::object()}},
                 {{"name", "g"}, {"hostPath", {{"path", "/etc"}}}}}}}),
          "hostPath volumes", "volumes \"h\", \"g\"");
  CHECK(run("hostPorts", 0, containers({{{"name", "a"}, {"ports", {{{"containerPort", 80}}}}}}))
            .allowed);
  forbids(run("hostPorts", 0,
              containers({{{"name", "a"}, {"ports", {{{"containerPort", 80}, {"hostPort", 9090}}}}},
                          {{"name", "b"},
                           {"ports",
                            {{{"containerPort", 80}, {"hostPort", 10000}},
                             {{"containerPort", 81}, {"hostPort", 0}}}}}})),
          "hostPort", "containers \"a\", \"b\" use hostPorts 10000, 9090");
  forbids(
      run("hostPorts", 0,
          containers({{{"name", "a"}, {"ports", {{{"containerPort", 80}, {"hostPort", 80}}}}}})),
      "hostPort", "container \"a\" uses hostPort 80");
}

TEST_CASE("AppArmor: profile types and the beta annotations", "[podsecurity]") {
  CHECK(
      run("appArmorProfile", 32,
          {{"securityContext", {{"appArmorProfile", {{"type", "RuntimeDefault"}}}}}},
          {{"annotations", {{"container.apparmor.security.beta.kubernetes.io/a", "localhost/x"}}}})
          .allowed);
  forbids(run("appArmorProfile", 32,
              {{"securityContext", {{"appArmorProfile", {{"type", "Unconfined"}}}}}}),
          "forbidden AppArmor profile", "pod must not set AppArmor profile type to \"Unconfined\"");
  forbids(run("appArmorProfile", 32,
              {{"initContainers",
                {{{"name", "bar"},
                  {"securityContext", {{"appArmorProfile", {{"type", "Unconfined"}}}}}}}}}),
          "forbidden AppArmor profile",
          "container \"bar\" must not set AppArmor profile type to \"Unconfined\"");
  forbids(run("appArmorProfile", 0, json::object(),
              {{"annotations",
                {{"container.apparmor.security.beta.kubernetes.io/", "bogus"},
                 {"container.apparmor.security.beta.kubernetes.io/a", ""},
                 {"container.apparmor.security.beta.kubernetes.io/b", "runtime/default"},
                 {"container.apparmor.security.beta.kubernetes.io/e", "unconfined"},
                 {"container.apparmor.security.beta.kubernetes.io/f", "unknown"}}}}),
          "forbidden AppArmor profiles",
          "annotations must not set AppArmor profile type to "
          "\"container.apparmor.security.beta.kubernetes.io/=\"bogus\"\", "
          "\"container.apparmor.security.beta.kubernetes.io/e=\"unconfined\"\", "
          "\"container.apparmor.security.beta.kubernetes.io/f=\"unknown\"\"");
}

TEST_CASE("SELinux options: types by version, user and role never", "[podsecurity]") {
  const json spec = {
      {"securityContext",
       {{"seLinuxOptions", {{"type", "foo"}, {"user", "bar"}, {"role", "baz"}}}}},
      {"containers",
       {{{"name", "a"}, {"securityContext", {{"seLinuxOptions", {{"type", "container_t"}}}}}},
        {{"name", "d"},
         {"securityContext", {{"seLinuxOptions", {{"type", "container_engine_t"}}}}}},
        {{"name", "e"}, {"securityContext", {{"seLinuxOptions", {{"type", "bar"}}}}}},
        {{"name", "f"}, {"securityContext", {{"seLinuxOptions", {{"user", "bar"}}}}}}}}};
  forbids(run("seLinuxOptions", 31, spec), "seLinuxOptions",
          "pod and containers \"e\", \"f\" set forbidden securityContext.seLinuxOptions: types "
          "\"bar\", \"foo\"; user may not be set; role may not be set");
  // container_engine_t is allowed from v1.31 only.
  forbids(run("seLinuxOptions", 30, spec), "seLinuxOptions",
          "pod and containers \"d\", \"e\", \"f\" set forbidden securityContext.seLinuxOptions: "
          "types \"bar\", \"container_engine_t\", \"foo\"; user may not be set; role may not be "
          "set");
  forbids(run("seLinuxOptions", 32, {{"securityContext", {{"seLinuxOptions", {{"role", "x"}}}}}}),
          "seLinuxOptions",
          "pod set forbidden securityContext.seLinuxOptions: role may not be set");
  CHECK(run("seLinuxOptions", 32,
            {{"securityContext", {{"seLinuxOptions", {{"type", "container_t"}, {"level", "s0"}}}}}})
            .allowed);
}

TEST_CASE("procMount must be Default", "[podsecurity]") {
  CHECK(run("procMount", 32,
            containers({{{"name", "a"}, {"securityContext", {{"procMount", "Default"}}}}}))
            .allowed);
  forbids(run("procMount", 32,
              containers({{{"name", "a"}, {"securityContext", {{"procMount", "Unmasked"}}}}})),
          "procMount", "container \"a\" must not set securityContext.procMount to \"Unmasked\"");
}

TEST_CASE("baseline seccomp: annotations before v1.19, fields after", "[podsecurity]") {
  const json unconfined = {
      {"securityContext", {{"seccompProfile", {{"type", "Unconfined"}}}}},
      {"containers",
       {{{"name", "a"}, {"securityContext", {{"seccompProfile", {{"type", "Unconfined"}}}}}}}}};
  forbids(run("seccompProfile_baseline", 19, unconfined), "seccompProfile",
          "pod and container \"a\" must not set securityContext.seccompProfile.type to "
          "\"Unconfined\"");
  CHECK(run("seccompProfile_baseline", 18, unconfined).allowed);  // v1.18 reads annotations only
  const json annotations = {
      {"annotations",
       {{"seccomp.security.alpha.kubernetes.io/pod", "unconfined"},
        {"container.seccomp.security.alpha.kubernetes.io/a", "docker/default"},
        {"container.seccomp.security.alpha.kubernetes.io/b", "bad"}}}};
  forbids(run("seccompProfile_baseline", 18, containers({{{"name", "a"}}, {{"name", "b"}}}),
              annotations),
          "seccompProfile",
          "forbidden annotations container.seccomp.security.alpha.kubernetes.io/b=\"bad\", "
          "seccomp.security.alpha.kubernetes.io/pod=\"unconfined\"");
  CHECK(run("seccompProfile_baseline", 32, containers({{{"name", "a"}}})).allowed);
}

TEST_CASE("sysctls: the safe set grows with the version", "[podsecurity]") {
  auto with = [](std::initializer_list<const char*> names) {
    json list = json::array();
    for (const char* n : names) {
      list.push_back({{"name", n}, {"value", "1"}});
    }
    return json{{"securityContext", {{"sysctls", list}}}};
  };
  CHECK(run("sysctls", 0, with({"kernel.shm_rmid_forced"})).allowed);
  forbids(run("sysctls", 26, with({"net.ipv4.ip_local_reserved_ports", "kernel.msgmax"})),
          "forbidden sysctls", "net.ipv4.ip_local_reserved_ports, kernel.msgmax");
  CHECK(run("sysctls", 27, with({"net.ipv4.ip_local_reserved_ports"})).allowed);
  forbids(run("sysctls", 28, with({"net.ipv4.tcp_keepalive_time"})), "forbidden sysctls",
          "net.ipv4.tcp_keepalive_time");
  CHECK(run("sysctls", 29, with({"net.ipv4.tcp_keepalive_time"})).allowed);
  forbids(run("sysctls", 31, with({"net.ipv4.tcp_rmem"})), "forbidden sysctls",
          "net.ipv4.tcp_rmem");
  CHECK(run("sysctls", 32, with({"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"})).allowed);
}

TEST_CASE("restricted volume types", "[podsecurity]") {
  CHECK(run("restrictedVolumes", 32,
            {{"volumes",
              {{{"name", "a"}, {"configMap", {{"name", "x"}}}},
               {{"name", "b"}, {"projected", {{"sources", json::array()}}}},
               {{"name", "c"}, {"persistentVolumeClaim", {{"claimName", "x"}}}}}}})
            .allowed);
  forbids(run("restrictedVolumes", 32,
              {{"volumes",
                {{{"name", "a"}, {"hostPath", {{"path", "/"}}}},
                 {{"name", "b"}, {"emptyDir", json::object()}},
                 {{"name", "c"}, {"nfs", {{"server", "x"}, {"path", "/"}}}},
                 {{"name", "d"}}}}}),
          "restricted volume types",
          "volumes \"a\", \"c\", \"d\" use restricted volume types \"hostPath\", \"nfs\", "
          "\"unknown\"");
  forbids(
      run("restrictedVolumes", 32, {{"volumes", {{{"name", "h"}, {"hostPath", {{"path", "/"}}}}}}}),
      "restricted volume types", "volume \"h\" uses restricted volume type \"hostPath\"");
}

TEST_CASE("allowPrivilegeEscalation must be false, except on Windows from v1.25", "[podsecurity]") {
  const json spec =
      containers({{{"name", "a"}},
                  {{"name", "b"}, {"securityContext", {{"allowPrivilegeEscalation", false}}}},
                  {{"name", "c"}, {"securityContext", {{"allowPrivilegeEscalation", true}}}}});
  forbids(run("allowPrivilegeEscalation", 32, spec), "allowPrivilegeEscalation != false",
          "containers \"a\", \"c\" must set securityContext.allowPrivilegeEscalation=false");
  json windows = spec;
  windows["os"] = {{"name", "windows"}};
  CHECK(run("allowPrivilegeEscalation", 25, windows).allowed);
  CHECK_FALSE(run("allowPrivilegeEscalation", 24, windows).allowed);
}

TEST_CASE("runAsNonRoot: explicit false, or unset without the pod's true", "[podsecurity]") {
  CHECK(run("runAsNonRoot", 32,
            {{"securityContext", {{"runAsNonRoot", true}}}, {"containers", {{{"name", "a"}}}}})
            .allowed);
  forbids(run("runAsNonRoot", 32, containers({{{"name", "a"}}, {{"name", "b"}}})),
          "runAsNonRoot != true",
          "pod or containers \"a\", \"b\" must set securityContext.runAsNonRoot=true");
  forbids(
      run("runAsNonRoot", 32,
          {{"securityContext", {{"runAsNonRoot", false}}},
           {"containers",
            {{{"name", "a"}, {"securityContext", {{"runAsNonRoot", false}}}}, {{"name", "b"}}}}}),
      "runAsNonRoot != true",
      "pod and container \"a\" must not set securityContext.runAsNonRoot=false");
}

TEST_CASE("runAsUser=0 is forbidden from v1.23", "[podsecurity]") {
  const json spec = {{"securityContext", {{"runAsUser", 0}}},
                     {"containers",
                      {{{"name", "a"}, {"securityContext", {{"runAsUser", 0}}}},
                       {{"name", "b"}, {"securityContext", {{"runAsUser", 1000}}}}}}};
  forbids(run("runAsUser", 23, spec), "runAsUser=0",
          "pod and container \"a\" must not set runAsUser=0");
  CHECK(run("runAsUser", 32, containers({{{"name", "b"}, {"securityContext", {{"runAsUser", 1}}}}}))
            .allowed);
}

TEST_CASE("restricted seccomp must be set, by the pod or every container", "[podsecurity]") {
  forbids(run("seccompProfile_restricted", 32, containers({{{"name", "a"}}})), "seccompProfile",
          "pod or container \"a\" must set securityContext.seccompProfile.type to "
          "\"RuntimeDefault\" or \"Localhost\"");
  CHECK(run("seccompProfile_restricted", 32,
            {{"securityContext", {{"seccompProfile", {{"type", "RuntimeDefault"}}}}},
             {"containers", {{{"name", "a"}}}}})
            .allowed);
  forbids(run("seccompProfile_restricted", 32,
              {{"securityContext", {{"seccompProfile", {{"type", "Localhost"}}}}},
               {"containers",
                {{{"name", "a"},
                  {"securityContext", {{"seccompProfile", {{"type", "Unconfined"}}}}}}}}}),
          "seccompProfile",
          "container \"a\" must not set securityContext.seccompProfile.type to \"Unconfined\"");
  json windows = containers({{{"name", "a"}}});
  windows["os"] = {{"name", "windows"}};
  CHECK(run("seccompProfile_restricted", 32, windows).allowed);
}

TEST_CASE("restricted capabilities: drop ALL, add only NET_BIND_SERVICE", "[podsecurity]") {
  CHECK(
      run("capabilities_restricted", 32,
          containers({{{"name", "a"},
                       {"securityContext",
                        {{"capabilities", {{"drop", {"ALL"}}, {"add", {"NET_BIND_SERVICE"}}}}}}}}))
          .allowed);
  forbids(
      run("capabilities_restricted", 32,
          containers(
              {{{"name", "a"}},
               {{"name", "b"},
                {"securityContext",
                 {{"capabilities", {{"drop", {"ALL"}}, {"add", {"SYS_ADMIN", "NET_ADMIN"}}}}}}}})),
      "unrestricted capabilities",
      "container \"a\" must set securityContext.capabilities.drop=[\"ALL\"]; container \"b\" "
      "must not include \"NET_ADMIN\", \"SYS_ADMIN\" in securityContext.capabilities.add");
}
