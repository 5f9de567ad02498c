// The baseline checks of the Pod Security Standards as k8s.io/pod-security-admission v1.32 has
// them, with its reasons and details word for word: host process (Windows), host namespaces,
// privileged, capabilities, hostPath volumes, host ports, AppArmor, SELinux, /proc mount,
// seccomp and sysctls.
#include <set>

#include "admission/plugins/pod_security/check.h"
#include "common/go_quote.h"

namespace apiserver::admission::pod_security {
namespace {

using nlohmann::json;

CheckResult windows_host_process_1_0(const json&, const json& spec) {
  std::vector<std::string> bad;
  for (const json* c : containers_of(spec)) {
    if (is_true(object_at(security_context(*c), "windowsOptions"), "hostProcess")) {
      bad.push_back(container_name(*c));
    }
  }
  const bool pod = is_true(object_at(security_context(spec), "windowsOptions"), "hostProcess");
  if (!pod && bad.empty()) {
    return allowed();
  }
  return forbidden(
      "hostProcess",
      setters(pod, bad) + " must not set securityContext.windowsOptions.hostProcess=true");
}

CheckResult host_namespaces_1_0(const json&, const json& spec) {
  std::vector<std::string> used;
  for (const char* field : {"hostNetwork", "hostPID", "hostIPC"}) {
    if (is_true(spec, field)) {
      used.push_back(std::string(field) + "=true");
    }
  }
  if (used.empty()) {
    return allowed();
  }
  return forbidden("host namespaces", join(used, ", "));
}

CheckResult privileged_1_0(const json&, const json& spec) {
  std::vector<std::string> bad;
  for (const json* c : containers_of(spec)) {
    if (is_true(security_context(*c), "privileged")) {
      bad.push_back(container_name(*c));
    }
  }
  if (bad.empty()) {
    return allowed();
  }
  return forbidden("privileged",
                   containers_phrase(bad) + " must not set securityContext.privileged=true");
}

CheckResult capabilities_baseline_1_0(const json&, const json& spec) {
  static const std::set<std::string> kAllowed = {
      "AUDIT_WRITE",      "CHOWN",   "DAC_OVERRIDE", "FOWNER",  "FSETID", "KILL",      "MKNOD",
      "NET_BIND_SERVICE", "SETFCAP", "SETGID",       "SETPCAP", "SETUID", "SYS_CHROOT"};
  std::vector<std::string> bad;
  std::set<std::string> capabilities;
  for (const json* c : containers_of(spec)) {
    const json& capabilities_of = object_at(security_context(*c), "capabilities");
    bool valid = true;
    auto add = capabilities_of.find("add");
    if (add != capabilities_of.end() && add->is_array()) {
      for (const auto& cap : *add) {
        const std::string name = cap.is_string() ? cap.get<std::string>() : std::string();
        if (kAllowed.count(name) == 0) {
          valid = false;
          capabilities.insert(name);
        }
      }
    }
    if (!valid) {
      bad.push_back(container_name(*c));
    }
  }
  if (bad.empty()) {
    return allowed();
  }
  return forbidden("non-default capabilities", containers_phrase(bad) + " must not include " +
                                                   join_quote(capabilities) +
                                                   " in securityContext.capabilities.add");
}

CheckResult host_path_volumes_1_0(const json&, const json& spec) {
  std::vector<std::string> bad;
  for (const json* v : volumes_of(spec)) {
    if (has(*v, "hostPath")) {
      bad.push_back(string_of(*v, "name"));
    }
  }
  if (bad.empty()) {
    return allowed();
  }
  return forbidden("hostPath volumes",
                   pluralize("volume", "volumes", bad.size()) + " " + join_quote(bad));
}

CheckResult host_ports_1_0(const json&, const json& spec) {
  std::vector<std::string> bad;
  std::set<std::string> ports;  // sorted as text, as upstream's string set
  for (const json* c : containers_of(spec)) {
    bool valid = true;
    auto it = c->find("ports");
    if (it != c->end() && it->is_array()) {
      for (const auto& p : *it) {
        if (!p.is_object()) {
          continue;
        }
        auto host = p.find("hostPort");
        if (host != p.end() && host->is_number_integer() && host->get<int64_t>() != 0) {
          valid = false;
          ports.insert(std::to_string(host->get<int64_t>()));
        }
      }
    }
    if (!valid) {
      bad.push_back(container_name(*c));
    }
  }
  if (bad.empty()) {
    return allowed();
  }
  std::vector<std::string> listed(ports.begin(), ports.end());
  return forbidden("hostPort", containers_phrase(bad) + " " + pluralize("uses", "use", bad.size()) +
                                   " " + pluralize("hostPort", "hostPorts", ports.size()) + " " +
                                   join(listed, ", "));
}

bool allowed_apparmor_type(const std::string& type) {
  return type == "RuntimeDefault" || type == "Localhost";
}

bool allowed_apparmor_annotation(const std::string& value) {
  return value.empty() || value == "runtime/default" || value.rfind("localhost/", 0) == 0;
}

CheckResult app_armor_profile_1_0(const json& metadata, const json& spec) {
  std::vector<std::string> bad_setters;
  std::set<std::string> bad_values;
  const json& pod_sc = security_context(spec);
  if (has(pod_sc, "appArmorProfile")) {
    const std::string type = string_of(object_at(pod_sc, "appArmorProfile"), "type");
    if (!allowed_apparmor_type(type)) {
      bad_setters.emplace_back("pod");
      bad_values.insert(type);
    }
  }
  std::vector<std::string> bad_containers;
  for (const json* c : containers_of(spec)) {
    const json& sc = security_context(*c);
    if (has(sc, "appArmorProfile")) {
      const std::string type = string_of(object_at(sc, "appArmorProfile"), "type");
      if (!allowed_apparmor_type(type)) {
        bad_containers.push_back(container_name(*c));
        bad_values.insert(type);
      }
    }
  }
  if (!bad_containers.empty()) {
    bad_setters.push_back(containers_phrase(bad_containers));
  }
  std::set<std::string> annotations;  // sorted, as upstream sorts them
  const std::string prefix = "container.apparmor.security.beta.kubernetes.io/";
  for (const auto& [key, value] : object_at(metadata, "annotations").items()) {
    const std::string text = value.is_string() ? value.get<std::string>() : std::string();
    if (key.rfind(prefix, 0) == 0 && !allowed_apparmor_annotation(text)) {
      annotations.insert(key + "=" + common::go_quote(text));
    }
  }
  std::vector<std::string> values(bad_values.begin(), bad_values.end());
  if (!annotations.empty()) {
    values.insert(values.end(), annotations.begin(), annotations.end());
    bad_setters.push_back(pluralize("annotation", "annotations", annotations.size()));
  }
  if (bad_setters.empty()) {
    return allowed();
  }
  return forbidden(
      pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", values.size()),
      join(bad_setters, " and ") + " must not set AppArmor profile type to " + join_quote(values));
}

CheckResult proc_mount_1_0(const json&, const json& spec) {
  std::vector<std::string> bad;
  std::set<std::string> types;
  for (const json* c : containers_of(spec)) {
    const json& sc = security_context(*c);
    if (!has(sc, "procMount")) {
      continue;
    }
    const std::string type = string_of(sc, "procMount");
    if (type != "Default") {
      bad.push_back(container_name(*c));
      types.insert(type);
    }
  }
  if (bad.empty()) {
    return allowed();
  }
  return forbidden(
      "procMount",
      containers_phrase(bad) + " must not set securityContext.procMount to " + join_quote(types));
}

CheckResult se_linux_options(const json& spec, const std::set<std::string>& allowed_types) {
  std::set<std::string> bad_types;
  bool set_user = false;
  bool set_role = false;
  auto valid = [&](const json& options) {
    bool ok = true;
    const std::string type = string_of(options, "type");
    if (allowed_types.count(type) == 0) {
      ok = false;
      bad_types.insert(type);
    }
    if (!string_of(options, "user").empty()) {
      ok = false;
      set_user = true;
    }
    if (!string_of(options, "role").empty()) {
      ok = false;
      set_role = true;
    }
    return ok;
  };
  const json& pod_sc = security_context(spec);
  const bool pod = has(pod_sc, "seLinuxOptions") && !valid(object_at(pod_sc, "seLinuxOptions"));
  std::vector<std::string> bad;
  for (const json* c : containers_of(spec)) {
    const json& sc = security_context(*c);
    if (has(sc, "seLinuxOptions") && !valid(object_at(sc, "seLinuxOptions"))) {
      bad.push_back(container_name(*c));
    }
  }
  if (!pod && bad.empty()) {
    return allowed();
  }
  std::vector<std::string> data;
  if (!bad_types.empty()) {
    data.push_back(pluralize("type", "types", bad_types.size()) + " " + join_quote(bad_types));
  }
  if (set_user) {
    data.emplace_back("user may not be set");
  }
  if (set_role) {
    data.emplace_back("role may not be set");
  }
  return forbidden(
      "seLinuxOptions",
      setters(pod, bad) + " set forbidden securityContext.seLinuxOptions: " + join(data, "; "));
}

CheckResult se_linux_options_1_0(const json&, const json& spec) {
  static const std::set<std::string> kTypes = {"", "container_t", "container_init_t",
                                               "container_kvm_t"};
  return se_linux_options(spec, kTypes);
}

CheckResult se_linux_options_1_31(const json&, const json& spec) {
  static const std::set<std::string> kTypes = {"", "container_t", "container_init_t",
                                               "container_kvm_t", "container_engine_t"};
  return se_linux_options(spec, kTypes);
}

bool valid_seccomp_annotation(const std::string& value) {
  return value == "runtime/default" || value == "docker/default" ||
         value.rfind("localhost/", 0) == 0;
}

CheckResult seccomp_profile_baseline_1_0(const json& metadata, const json& spec) {
  const json& annotations = object_at(metadata, "annotations");
  std::set<std::string> bad;
  auto inspect = [&](const std::string& key) {
    auto it = annotations.find(key);
    if (it == annotations.end()) {
      return;
    }
    const std::string value = it->is_string() ? it->get<std::string>() : std::string();
    if (!valid_seccomp_annotation(value)) {
      bad.insert(key + "=" + common::go_quote(value));
    }
  };
  inspect("seccomp.security.alpha.kubernetes.io/pod");
  for (const json* c : containers_of(spec)) {
    inspect("container.seccomp.security.alpha.kubernetes.io/" + container_name(*c));
  }
  if (bad.empty()) {
    return allowed();
  }
  std::vector<std::string> listed(bad.begin(), bad.end());
  return forbidden(
      "seccompProfile",
      "forbidden " + pluralize("annotation", "annotations", bad.size()) + " " + join(listed, ", "));
}

CheckResult seccomp_profile_baseline_1_19(const json&, const json& spec) {
  std::set<std::string> bad_values;
  const json& pod_sc = security_context(spec);
  bool pod = false;
  if (has(pod_sc, "seccompProfile")) {
    const std::string type = string_of(object_at(pod_sc, "seccompProfile"), "type");
    if (!valid_seccomp_type(type)) {
      pod = true;
      bad_values.insert(type);
    }
  }
  std::vector<std::string> bad;
  for (const json* c : containers_of(spec)) {
    const json& sc = security_context(*c);
    if (has(sc, "seccompProfile")) {
      const std::string type = string_of(object_at(sc, "seccompProfile"), "type");
      if (!valid_seccomp_type(type)) {
        bad.push_back(container_name(*c));
        bad_values.insert(type);
      }
    }
  }
  if (!pod && bad.empty()) {
    return allowed();
  }
  return forbidden("seccompProfile", setters(pod, bad) +
                                         " must not set securityContext.seccompProfile.type to " +
                                         join_quote(bad_values));
}

CheckResult sysctls(const json& spec, const std::set<std::string>& allowed_names) {
  std::vector<std::string> bad;
  const json& pod_sc = security_context(spec);
  auto it = pod_sc.find("sysctls");
  if (it != pod_sc.end() && it->is_array()) {
    for (const auto& s : *it) {
      const std::string name = string_of(s, "name");
      if (allowed_names.count(name) == 0) {
        bad.push_back(name);
      }
    }
  }
  if (bad.empty()) {
    return allowed();
  }
  return forbidden("forbidden sysctls", join(bad, ", "));
}

const std::set<std::string>& sysctls_allowed(int64_t since) {
  static const std::set<std::string> k1_0 = {
      "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
      "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start"};
  static const std::set<std::string> k1_27 = [] {
    auto s = k1_0;
    s.insert("net.ipv4.ip_local_reserved_ports");
    return s;
  }();
  static const std::set<std::string> k1_29 = [] {
    auto s = k1_27;
    s.insert({"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
              "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"});
    return s;
  }();
  static const std::set<std::string> k1_32 = [] {
    auto s = k1_29;
    s.insert({"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"});
    return s;
  }();
  if (since >= 32) {
    return k1_32;
  }
  if (since >= 29) {
    return k1_29;
  }
  return since >= 27 ? k1_27 : k1_0;
}

CheckResult sysctls_1_0(const json&, const json& spec) {
  return sysctls(spec, sysctls_allowed(0));
}
CheckResult sysctls_1_27(const json&, const json& spec) {
  return sysctls(spec, sysctls_allowed(27));
}
CheckResult sysctls_1_29(const json&, const json& spec) {
  return sysctls(spec, sysctls_allowed(29));
}
CheckResult sysctls_1_32(const json&, const json& spec) {
  return sysctls(spec, sysctls_allowed(32));
}

}  // namespace

bool valid_seccomp_type(const std::string& type) {
  return type == "RuntimeDefault" || type == "Localhost";
}

const std::vector<Check>& baseline_checks() {
  static const std::vector<Check> kChecks = {
      {"windowsHostProcess", Level::Baseline, {{0, &windows_host_process_1_0, {}}}},
      {"hostNamespaces", Level::Baseline, {{0, &host_namespaces_1_0, {}}}},
      {"privileged", Level::Baseline, {{0, &privileged_1_0, {}}}},
      {"capabilities_baseline", Level::Baseline, {{0, &capabilities_baseline_1_0, {}}}},
      {"hostPathVolumes", Level::Baseline, {{0, &host_path_volumes_1_0, {}}}},
      {"hostPorts", Level::Baseline, {{0, &host_ports_1_0, {}}}},
      {"appArmorProfile", Level::Baseline, {{0, &app_armor_profile_1_0, {}}}},
      {"seLinuxOptions",
       Level::Baseline,
       {{0, &se_linux_options_1_0, {}}, {31, &se_linux_options_1_31, {}}}},
      {"procMount", Level::Baseline, {{0, &proc_mount_1_0, {}}}},
      {"seccompProfile_baseline",
       Level::Baseline,
       {{0, &seccomp_profile_baseline_1_0, {}}, {19, &seccomp_profile_baseline_1_19, {}}}},
      {"sysctls",
       Level::Baseline,
       {{0, &sysctls_1_0, {}},
        {27, &sysctls_1_27, {}},
        {29, &sysctls_1_29, {}},
        {32, &sysctls_1_32, {}}}},
  };
  return kChecks;
}

}  // namespace apiserver::admission::pod_security
