#include "registry/kinds/pod_spec.h"

#include <atomic>
#include <set>

#include "registry/defaulting_fields.h"
#include "registry/go_text.h"
#include "registry/go_values.h"
#include "registry/validation_rules.h"

namespace apiserver::registry::kinds {

using namespace rules;
using namespace fields;

namespace {

std::atomic<bool> allow_privileged{true};

void validate_container_ports(const json& ports, const std::string& path, Errors& out) {
  if (!ports.is_array()) {
    return;
  }
  std::set<std::string> names;
  for (size_t i = 0; i < ports.size(); ++i) {
    const std::string p = index(path, i);
    const std::string name = str(ports[i], "name");
    if (!name.empty()) {
      for (const auto& msg : port_name_problems(name)) {
        out.push_back(invalid_value(p + ".name", name, msg));
      }
      if (!names.insert(name).second) {
        out.push_back(duplicate(p + ".name", go_quote(name)));
      }
    }
    const json& container_port = get(ports[i], "containerPort");
    if (!container_port.is_number_integer() || container_port.get<int64_t>() == 0) {
      out.push_back(required_value(p + ".containerPort", ""));
    } else {
      validate_port_number(container_port, p + ".containerPort", out);
    }
    const json& host_port = get(ports[i], "hostPort");
    if (host_port.is_number_integer() && host_port.get<int64_t>() != 0) {
      validate_port_number(host_port, p + ".hostPort", out);
    }
    validate_protocol(ports[i], p + ".protocol", out);
  }
}

void validate_resources(const json& resources, const std::string& path, Errors& out) {
  const json& limits = get(resources, "limits");
  const json& requests = get(resources, "requests");
  if (!requests.is_object()) {
    return;
  }
  for (auto it = requests.begin(); it != requests.end(); ++it) {
    const json& limit = get(limits, it.key().c_str());
    const auto request_value = go_quantity_value(*it);
    const auto limit_value = go_quantity_value(limit);
    if (request_value && limit_value && *request_value > *limit_value) {
      // Upstream prints both quantities in canonical form; inputs are echoed as written.
      out.push_back(invalid_value(
          key_of(path + ".requests", it.key()), quantity_text(*it),
          "must be less than or equal to " + it.key() + " limit of " + quantity_text(limit)));
    }
  }
}

void validate_containers(const json& containers, const std::string& path, bool required,
                         const std::set<std::string>& volumes, std::set<std::string>& names,
                         Errors& out) {
  if (!containers.is_array() || containers.empty()) {
    if (required) {
      out.push_back(required_value(path, ""));
    }
    return;
  }
  for (size_t i = 0; i < containers.size(); ++i) {
    const json& c = containers[i];
    const std::string p = index(path, i);
    const std::string name = str(c, "name");
    if (name.empty()) {
      out.push_back(required_value(p + ".name", ""));
    } else {
      for (const auto& msg : name_problems(name, NameRule::Dns1123Label, false)) {
        out.push_back(invalid_value(p + ".name", name, msg));
      }
      if (!names.insert(name).second) {
        out.push_back(duplicate(p + ".name", go_quote(name)));
      }
    }
    if (str(c, "image").empty()) {
      out.push_back(required_value(p + ".image", ""));
    }
    validate_container_ports(get(c, "ports"), p + ".ports", out);
    const json& mounts = get(c, "volumeMounts");
    if (mounts.is_array()) {
      std::set<std::string> mount_paths;
      for (size_t j = 0; j < mounts.size(); ++j) {
        const std::string mp = index(p + ".volumeMounts", j);
        const std::string mount_name = str(mounts[j], "name");
        if (mount_name.empty()) {
          out.push_back(required_value(mp + ".name", ""));
        } else if (!volumes.count(mount_name)) {
          out.push_back(not_found(mp + ".name", go_quote(mount_name)));
        }
        const std::string mount_path = str(mounts[j], "mountPath");
        if (mount_path.empty()) {
          out.push_back(required_value(mp + ".mountPath", ""));
        } else if (!mount_paths.insert(mount_path).second) {
          out.push_back(invalid_value(mp + ".mountPath", mount_path, "must be unique"));
        }
      }
    }
    validate_resources(get(c, "resources"), p + ".resources", out);
    if (get(get(c, "securityContext"), "privileged") == true && !allow_privileged.load()) {
      out.push_back(forbidden(p + ".securityContext.privileged", "disallowed by cluster policy"));
    }
  }
}

void validate_restart_policy(const json& spec, const std::string& path, Errors& out) {
  const std::string policy = str(spec, "restartPolicy");
  if (policy.empty()) {
    out.push_back(required_value(path, ""));
  } else if (policy != "Always" && policy != "OnFailure" && policy != "Never") {
    out.push_back(not_supported(path, go_quote(policy), {"Always", "OnFailure", "Never"}));
  }
}

void default_object_field_selector(json& field_ref) {
  default_string(field_ref, "apiVersion", "v1");
}

void default_http_get(json& http_get) {
  default_string(http_get, "path", "/");
  default_string(http_get, "scheme", "HTTP");
}

void default_probe(json& probe) {
  // Zero counts as unset for these int32 fields.
  auto zero_or_unset = [&](const char* key, int value) {
    auto it = probe.find(key);
    if (it == probe.end() || it->is_null() ||
        (it->is_number_integer() && it->get<long long>() == 0)) {
      probe[key] = value;
    }
  };
  zero_or_unset("timeoutSeconds", 1);
  zero_or_unset("periodSeconds", 10);
  zero_or_unset("successThreshold", 1);
  zero_or_unset("failureThreshold", 3);
  if (json* http = existing_object(probe, "httpGet")) {
    default_http_get(*http);
  }
  if (json* grpc = existing_object(probe, "grpc")) {
    default_value(*grpc, "service", "");
  }
}

void default_container(json& c) {
  if (empty_string(c, "imagePullPolicy")) {
    c["imagePullPolicy"] = default_image_pull_policy(string_at(c, "image"));
  }
  default_string(c, "terminationMessagePath", "/dev/termination-log");
  default_string(c, "terminationMessagePolicy", "File");
  for_each_object(c, "ports", [](json& port) { default_string(port, "protocol", "TCP"); });
  for_each_object(c, "env", [](json& env) {
    if (json* from = existing_object(env, "valueFrom")) {
      if (json* field_ref = existing_object(*from, "fieldRef")) {
        default_object_field_selector(*field_ref);
      }
    }
  });
  // Not a default: Go always writes the ResourceRequirements struct, so clients see `{}`.
  object_at(c, "resources");
  for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"}) {
    if (json* p = existing_object(c, probe)) {
      default_probe(*p);
    }
  }
  if (json* lifecycle = existing_object(c, "lifecycle")) {
    for (const char* hook : {"postStart", "preStop"}) {
      if (json* h = existing_object(*lifecycle, hook)) {
        if (json* http = existing_object(*h, "httpGet")) {
          default_http_get(*http);
        }
      }
    }
  }
}

void default_volume(json& v) {
  bool has_source = false;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it.key() != "name" && !it->is_null()) {
      has_source = true;
    }
  }
  if (!has_source) {
    v["emptyDir"] = json::object();
  }
  if (json* host_path = existing_object(v, "hostPath")) {
    default_value(*host_path, "type", "");
  }
  for (const char* source : {"secret", "configMap", "downwardAPI", "projected"}) {
    if (json* s = existing_object(v, source)) {
      default_value(*s, "defaultMode", 420);
    }
  }
  if (json* downward = existing_object(v, "downwardAPI")) {
    for_each_object(*downward, "items", [](json& item) {
      if (json* ref = existing_object(item, "fieldRef")) {
        default_object_field_selector(*ref);
      }
    });
  }
  if (json* projected = existing_object(v, "projected")) {
    for_each_object(*projected, "sources", [](json& src) {
      if (json* downward = existing_object(src, "downwardAPI")) {
        for_each_object(*downward, "items", [](json& item) {
          if (json* ref = existing_object(item, "fieldRef")) {
            default_object_field_selector(*ref);
          }
        });
      }
      if (json* token = existing_object(src, "serviceAccountToken")) {
        default_value(*token, "expirationSeconds", 3600);
      }
    });
  }
  if (json* ephemeral = existing_object(v, "ephemeral")) {
    if (json* tmpl = existing_object(*ephemeral, "volumeClaimTemplate")) {
      if (json* spec = existing_object(*tmpl, "spec")) {
        default_pvc_spec(*spec);
      }
    }
  }
}

}  // namespace

void set_allow_privileged(bool allowed) {
  allow_privileged.store(allowed);
}

void validate_pod_spec(const json& spec, const std::string& path, Errors& out) {
  std::set<std::string> volumes;
  const json& vols = get(spec, "volumes");
  if (vols.is_array()) {
    for (size_t i = 0; i < vols.size(); ++i) {
      const std::string p = index(path + ".volumes", i);
      const std::string name = str(vols[i], "name");
      if (name.empty()) {
        out.push_back(required_value(p + ".name", ""));
      } else {
        for (const auto& msg : name_problems(name, NameRule::Dns1123Label, false)) {
          out.push_back(invalid_value(p + ".name", name, msg));
        }
        if (!volumes.insert(name).second) {
          out.push_back(duplicate(p + ".name", go_quote(name)));
        }
      }
      if (vols[i].is_object() && vols[i].size() == (vols[i].contains("name") ? 1u : 0u)) {
        out.push_back(required_value(p, "must specify a volume type"));
      }
    }
  }
  std::set<std::string> names;
  validate_containers(get(spec, "initContainers"), path + ".initContainers", false, volumes, names,
                      out);
  validate_containers(get(spec, "containers"), path + ".containers", true, volumes, names, out);
  validate_restart_policy(spec, path + ".restartPolicy", out);
  const json& deadline = get(spec, "activeDeadlineSeconds");
  if (deadline.is_number_integer() && deadline.get<int64_t>() <= 0) {
    // Text unverified for 1.32.
    out.push_back(invalid_rendered(path + ".activeDeadlineSeconds", deadline.dump(),
                                   "must be between 1 and 2147483647, inclusive"));
  }
}

void validate_pod_template(const json& tmpl, const std::string& path, Errors& out) {
  const json& meta = get(tmpl, "metadata");
  validate_labels(get(meta, "labels"), path + ".metadata.labels", out);
  validate_annotations(get(meta, "annotations"), path + ".metadata.annotations", out);
  validate_pod_spec(get(tmpl, "spec"), path + ".spec", out);
}

void default_pvc_spec(json& spec) {
  default_value(spec, "volumeMode", "Filesystem");
}

void default_pod_spec(json& spec) {
  default_string(spec, "dnsPolicy", "ClusterFirst");
  default_string(spec, "restartPolicy", "Always");
  default_value(spec, "securityContext", json::object());
  default_value(spec, "terminationGracePeriodSeconds", 30);
  default_string(spec, "schedulerName", "default-scheduler");
  for_each_object(spec, "volumes", default_volume);
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    for_each_object(spec, list, default_container);
  }
  // Decoding takes serviceAccount when serviceAccountName is empty; encoding writes both.
  if (empty_string(spec, "serviceAccountName") && !empty_string(spec, "serviceAccount")) {
    spec["serviceAccountName"] = spec["serviceAccount"];
  }
  if (!empty_string(spec, "serviceAccountName")) {
    spec["serviceAccount"] = spec["serviceAccountName"];
  }
}

void default_pod_template(json& tmpl) {
  if (json* meta = object_at(tmpl, "metadata")) {
    if (meta->find("creationTimestamp") == meta->end()) {
      (*meta)["creationTimestamp"] = nullptr;
    }
  }
  if (json* spec = object_at(tmpl, "spec")) {
    default_pod_spec(*spec);
  }
}

}  // namespace apiserver::registry::kinds
