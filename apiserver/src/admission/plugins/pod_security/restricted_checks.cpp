// The restricted checks of the Pod Security Standards as k8s.io/pod-security-admission v1.32 has
// them, with its reasons and details word for word: volume types, privilege escalation, running
// as non-root, runAsUser != 0, seccomp and capabilities. From v1.25 Windows pods
// (spec.os.name=windows) are exempt from the Linux-only ones (privilege escalation, seccomp,
// capabilities). Some replace a baseline check at the restricted level (`overrides`).
#include <set>
#include <utility>

#include "admission/plugins/pod_security/check.h"

namespace apiserver::admission::pod_security {
namespace {

using nlohmann::json;

bool windows_pod(const json& spec) {
  return string_of(object_at(spec, "os"), "name") == "windows";
}

CheckResult restricted_volumes_1_0(const json&, const json& spec) {
  // The volume sources restricted allows; any other is named by its field, in upstream's order.
  static const char* const kAllowed[] = {"configMap", "csi",       "downwardAPI",
                                         "emptyDir",  "ephemeral", "persistentVolumeClaim",
                                         "projected", "secret"};
  static const char* const kRestricted[] = {"hostPath",
                                            "gcePersistentDisk",
                                            "awsElasticBlockStore",
                                            "gitRepo",
                                            "nfs",
                                            "iscsi",
                                            "glusterfs",
                                            "rbd",
                                            "flexVolume",
                                            "cinder",
                                            "cephfs",
                                            "flocker",
                                            "fc",
                                            "azureFile",
                                            "vsphereVolume",
                                            "quobyte",
                                            "azureDisk",
                                            "photonPersistentDisk",
                                            "portworxVolume",
                                            "scaleIO",
                                            "storageos"};
  std::vector<std::string> bad;
  std::set<std::string> types;
  for (const json* v : volumes_of(spec)) {
    bool ok = false;
    for (const char* source : kAllowed) {
      ok = ok || has(*v, source);
    }
    if (ok) {
      continue;
    }
    bad.push_back(string_of(*v, "name"));
    std::string type = "unknown";
    for (const char* source : kRestricted) {
      if (has(*v, source)) {
        type = source;
        break;
      }
    }
    types.insert(type);
  }
  if (bad.empty()) {
    return allowed();
  }
  return forbidden(
      "restricted volume types",
      pluralize("volume", "volumes", bad.size()) + " " + join_quote(bad) + " " +
          pluralize("uses", "use", bad.size()) + " " +
          pluralize("restricted volume type", "restricted volume types", types.size()) + " " +
          join_quote(types));
}

CheckResult allow_privilege_escalation_1_8(const json&, const json& spec) {
  std::vector<std::string> bad;
  for (const json* c : containers_of(spec)) {
    if (!is_false(security_context(*c), "allowPrivilegeEscalation")) {
      bad.push_back(container_name(*c));
    }
  }
  if (bad.empty()) {
    return allowed();
  }
  return forbidden(
      "allowPrivilegeEscalation != false",
      containers_phrase(bad) + " must set securityContext.allowPrivilegeEscalation=false");
}

CheckResult allow_privilege_escalation_1_25(const json& metadata, const json& spec) {
  return windows_pod(spec) ? allowed() : allow_privilege_escalation_1_8(metadata, spec);
}

CheckResult run_as_non_root_1_0(const json&, const json& spec) {
  std::vector<std::string> bad_setters;
  const json& pod_sc = security_context(spec);
  bool pod_non_root = false;
  if (has(pod_sc, "runAsNonRoot")) {
    if (is_true(pod_sc, "runAsNonRoot")) {
      pod_non_root = true;
    } else {
      bad_setters.emplace_back("pod");
    }
  }
  std::vector<std::string> explicit_bad;
  std::vector<std::string> implicit_bad;
  for (const json* c : containers_of(spec)) {
    const json& sc = security_context(*c);
    if (has(sc, "runAsNonRoot")) {
      if (!is_true(sc, "runAsNonRoot")) {
        explicit_bad.push_back(container_name(*c));
      }
    } else if (!pod_non_root) {
      implicit_bad.push_back(container_name(*c));
    }
  }
  if (!explicit_bad.empty()) {
    bad_setters.push_back(containers_phrase(explicit_bad));
  }
  if (!bad_setters.empty()) {
    return forbidden(
        "runAsNonRoot != true",
        join(bad_setters, " and ") + " must not set securityContext.runAsNonRoot=false");
  }
  if (!implicit_bad.empty()) {
    return forbidden("runAsNonRoot != true", "pod or " + containers_phrase(implicit_bad) +
                                                 " must set securityContext.runAsNonRoot=true");
  }
  return allowed();
}

bool runs_as_root(const json& security_context_object) {
  auto it = security_context_object.find("runAsUser");
  return it != security_context_object.end() && it->is_number_integer() && it->get<int64_t>() == 0;
}

CheckResult run_as_user_1_23(const json&, const json& spec) {
  const bool pod = runs_as_root(security_context(spec));
  std::vector<std::string> bad;
  for (const json* c : containers_of(spec)) {
    if (runs_as_root(security_context(*c))) {
      bad.push_back(container_name(*c));
    }
  }
  if (!pod && bad.empty()) {
    return allowed();
  }
  return forbidden("runAsUser=0", setters(pod, bad) + " must not set runAsUser=0");
}

CheckResult seccomp_profile_restricted_1_19(const json&, const json& spec) {
  std::set<std::string> bad_values;
  const json& pod_sc = security_context(spec);
  bool pod = false;
  bool pod_set = false;
  if (has(pod_sc, "seccompProfile")) {
    const std::string type = string_of(object_at(pod_sc, "seccompProfile"), "type");
    if (valid_seccomp_type(type)) {
      pod_set = true;
    } else {
      pod = true;
      bad_values.insert(type);
    }
  }
  std::vector<std::string> explicit_bad;
  std::vector<std::string> implicit_bad;
  for (const json* c : containers_of(spec)) {
    const json& sc = security_context(*c);
    if (has(sc, "seccompProfile")) {
      const std::string type = string_of(object_at(sc, "seccompProfile"), "type");
      if (!valid_seccomp_type(type)) {
        explicit_bad.push_back(container_name(*c));
        bad_values.insert(type);
      }
    } else if (!pod_set) {
      implicit_bad.push_back(container_name(*c));
    }
  }
  if (pod || !explicit_bad.empty()) {
    return forbidden("seccompProfile", setters(pod, explicit_bad) +
                                           " must not set securityContext.seccompProfile.type to " +
                                           join_quote(bad_values));
  }
  if (!implicit_bad.empty()) {
    return forbidden("seccompProfile",
                     "pod or " + containers_phrase(implicit_bad) +
                         " must set securityContext.seccompProfile.type to \"RuntimeDefault\" or "
                         "\"Localhost\"");
  }
  return allowed();
}

CheckResult seccomp_profile_restricted_1_25(const json& metadata, const json& spec) {
  return windows_pod(spec) ? allowed() : seccomp_profile_restricted_1_19(metadata, spec);
}

CheckResult capabilities_restricted_1_22(const json&, const json& spec) {
  std::vector<std::string> missing_drop_all;
  std::vector<std::string> adding;
  std::set<std::string> forbidden_capabilities;
  for (const json* c : containers_of(spec)) {
    const json& sc = security_context(*c);
    if (!has(sc, "capabilities")) {
      missing_drop_all.push_back(container_name(*c));
      continue;
    }
    const json& capabilities = object_at(sc, "capabilities");
    bool dropped_all = false;
    auto drop = capabilities.find("drop");
    if (drop != capabilities.end() && drop->is_array()) {
      for (const auto& cap : *drop) {
        dropped_all = dropped_all || (cap.is_string() && cap.get<std::string>() == "ALL");
      }
    }
    if (!dropped_all) {
      missing_drop_all.push_back(container_name(*c));
    }
    bool added_forbidden = false;
    auto add = capabilities.find("add");
    if (add != capabilities.end() && add->is_array()) {
      for (const auto& cap : *add) {
        const std::string name = cap.is_string() ? cap.get<std::string>() : std::string();
        if (name != "NET_BIND_SERVICE") {
          added_forbidden = true;
          forbidden_capabilities.insert(name);
        }
      }
    }
    if (added_forbidden) {
      adding.push_back(container_name(*c));
    }
  }
  std::vector<std::string> details;
  if (!missing_drop_all.empty()) {
    details.push_back(containers_phrase(missing_drop_all) +
                      " must set securityContext.capabilities.drop=[\"ALL\"]");
  }
  if (!adding.empty()) {
    details.push_back(containers_phrase(adding) + " must not include " +
                      join_quote(forbidden_capabilities) + " in securityContext.capabilities.add");
  }
  if (details.empty()) {
    return allowed();
  }
  return forbidden("unrestricted capabilities", join(details, "; "));
}

CheckResult capabilities_restricted_1_25(const json& metadata, const json& spec) {
  return windows_pod(spec) ? allowed() : capabilities_restricted_1_22(metadata, spec);
}

}  // namespace

const std::vector<Check>& restricted_checks() {
  static const std::vector<Check> kChecks = {
      {"restrictedVolumes", Level::Restricted, {{0, &restricted_volumes_1_0, {"hostPathVolumes"}}}},
      {"allowPrivilegeEscalation",
       Level::Restricted,
       {{8, &allow_privilege_escalation_1_8, {}}, {25, &allow_privilege_escalation_1_25, {}}}},
      {"runAsNonRoot", Level::Restricted, {{0, &run_as_non_root_1_0, {}}}},
      {"runAsUser", Level::Restricted, {{23, &run_as_user_1_23, {}}}},
      {"seccompProfile_restricted",
       Level::Restricted,
       {{19, &seccomp_profile_restricted_1_19, {"seccompProfile_baseline"}},
        {25, &seccomp_profile_restricted_1_25, {"seccompProfile_baseline"}}}},
      {"capabilities_restricted",
       Level::Restricted,
       {{22, &capabilities_restricted_1_22, {"capabilities_baseline"}},
        {25, &capabilities_restricted_1_25, {"capabilities_baseline"}}}},
  };
  return kChecks;
}

}  // namespace apiserver::admission::pod_security
