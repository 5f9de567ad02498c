#include "registry/defaults.h"

#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "registry/go_values.h"
#include "registry/objects.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;

// ---- JSON helpers: every helper tolerates a wrong JSON type by doing nothing ----

// The object at `key`, created empty when absent; null when present with another type.
json* object_at(json& parent, const char* key) {
  if (!parent.is_object()) {
    return nullptr;
  }
  auto it = parent.find(key);
  if (it == parent.end() || it->is_null()) {
    parent[key] = json::object();
    return &parent[key];
  }
  return it->is_object() ? &*it : nullptr;
}

// The object at `key` only when it is already there.
json* existing_object(json& parent, const char* key) {
  if (!parent.is_object()) {
    return nullptr;
  }
  auto it = parent.find(key);
  return it != parent.end() && it->is_object() ? &*it : nullptr;
}

json* existing_array(json& parent, const char* key) {
  if (!parent.is_object()) {
    return nullptr;
  }
  auto it = parent.find(key);
  return it != parent.end() && it->is_array() ? &*it : nullptr;
}

// Absent, null, or "" (Go's zero string): what `if x == ""` defaulting sees.
bool empty_string(const json& parent, const char* key) {
  auto it = parent.find(key);
  return it == parent.end() || it->is_null() ||
         (it->is_string() && it->get_ref<const std::string&>().empty());
}

// Absent or null: what `if x == nil` defaulting sees for pointer fields.
bool unset(const json& parent, const char* key) {
  auto it = parent.find(key);
  return it == parent.end() || it->is_null();
}

void default_string(json& parent, const char* key, const char* value) {
  if (parent.is_object() && empty_string(parent, key)) {
    parent[key] = value;
  }
}

void default_value(json& parent, const char* key, const json& value) {
  if (parent.is_object() && unset(parent, key)) {
    parent[key] = value;
  }
}

// Absent, null or {} map (Go's len(map) == 0).
bool empty_map(const json& parent, const char* key) {
  auto it = parent.find(key);
  return it == parent.end() || it->is_null() || (it->is_object() && it->empty());
}

size_t array_size(const json& parent, const char* key) {
  auto it = parent.find(key);
  return it != parent.end() && it->is_array() ? it->size() : 0;
}

std::string string_at(const json& parent, const char* key) {
  auto it = parent.find(key);
  return it != parent.end() && it->is_string() ? it->get<std::string>() : std::string();
}

template <typename F>
void for_each_object(json& parent, const char* key, F&& f) {
  if (json* items = existing_array(parent, key)) {
    for (auto& item : *items) {
      if (item.is_object()) {
        f(item);
      }
    }
  }
}

std::string base64_encode(const std::string& in) {
  static constexpr char kTable[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(in[i]) << 16) |
                 (static_cast<unsigned char>(in[i + 1]) << 8) |
                 static_cast<unsigned char>(in[i + 2]);
    out += kTable[(v >> 18) & 63];
    out += kTable[(v >> 12) & 63];
    out += kTable[(v >> 6) & 63];
    out += kTable[v & 63];
  }
  if (i + 1 == in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    out += kTable[(v >> 18) & 63];
    out += kTable[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    unsigned v =
        (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8);
    out += kTable[(v >> 18) & 63];
    out += kTable[(v >> 12) & 63];
    out += kTable[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

// ---- core/v1 ----

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

void default_pvc_spec(json& spec) {
  default_value(spec, "volumeMode", "Filesystem");
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

// SetDefaults_PodSpec and everything nested (pods and every pod template), plus the v1
// conversion that mirrors serviceAccountName into the deprecated serviceAccount field.
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

// A PodTemplateSpec inside a workload: defaults plus the always-written template metadata.
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

// SetDefaults_Pod: the parts that apply to pods only, not to templates.
void default_pod_only(json& spec) {
  for (const char* list : {"containers", "initContainers"}) {
    for_each_object(spec, list, [](json& c) {
      json* resources = existing_object(c, "resources");
      if (resources == nullptr) {
        return;
      }
      json* limits = existing_object(*resources, "limits");
      if (limits == nullptr) {
        return;
      }
      json* requests = object_at(*resources, "requests");
      if (requests == nullptr) {
        return;
      }
      for (auto it = limits->begin(); it != limits->end(); ++it) {
        if (requests->find(it.key()) == requests->end()) {
          (*requests)[it.key()] = *it;
        }
      }
    });
  }
  default_value(spec, "enableServiceLinks", true);
  auto host_network = spec.find("hostNetwork");
  if (host_network != spec.end() && host_network->is_boolean() && host_network->get<bool>()) {
    for (const char* list : {"containers", "initContainers"}) {
      for_each_object(spec, list, [](json& c) {
        for_each_object(c, "ports", [](json& port) {
          auto hp = port.find("hostPort");
          if (hp == port.end() || hp->is_null() || (hp->is_number() && hp->get<long long>() == 0)) {
            if (port.contains("containerPort")) {
              port["hostPort"] = port["containerPort"];
            }
          }
        });
      });
    }
  }
}

constexpr const char* kTokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount";

// ServiceAccount admission on CREATE (the caller has checked the account exists).
void admit_service_account(json& pod, json& spec, const DefaultingContext& ctx) {
  auto annotations = pod.find("metadata");
  if (annotations != pod.end() && annotations->is_object()) {
    auto a = annotations->find("annotations");
    if (a != annotations->end() && a->is_object() && a->contains("kubernetes.io/config.mirror")) {
      return;  // mirror pods are left alone
    }
  }
  default_string(spec, "serviceAccountName", "default");
  spec["serviceAccount"] = spec["serviceAccountName"];

  bool automount = true;
  if (spec.contains("automountServiceAccountToken") &&
      spec["automountServiceAccountToken"].is_boolean()) {
    automount = spec["automountServiceAccountToken"].get<bool>();
  } else if (ctx.service_account != nullptr && ctx.service_account->is_object() &&
             ctx.service_account->contains("automountServiceAccountToken") &&
             (*ctx.service_account)["automountServiceAccountToken"].is_boolean()) {
    automount = (*ctx.service_account)["automountServiceAccountToken"].get<bool>();
  }
  if (automount) {
    std::string volume_name;
    bool has_volume = false;
    for_each_object(spec, "volumes", [&](json& v) {
      std::string name = string_at(v, "name");
      if (!has_volume && name.rfind("kube-api-access-", 0) == 0) {
        volume_name = name;
        has_volume = true;
      }
    });
    if (volume_name.empty()) {
      volume_name = "kube-api-access-" +
                    (ctx.volume_suffix.empty() ? random_name_suffix() : ctx.volume_suffix);
    }
    bool needs_volume = false;
    for (const char* list : {"initContainers", "containers"}) {
      for_each_object(spec, list, [&](json& c) {
        bool mounted = false;
        for_each_object(c, "volumeMounts", [&](json& m) {
          if (string_at(m, "mountPath") == kTokenMountPath) {
            mounted = true;
          }
        });
        if (!mounted) {
          if (unset(c, "volumeMounts") || !c["volumeMounts"].is_array()) {
            c["volumeMounts"] = json::array();
          }
          c["volumeMounts"].push_back(
              {{"name", volume_name}, {"readOnly", true}, {"mountPath", kTokenMountPath}});
          needs_volume = true;
        }
      });
    }
    if (!has_volume && needs_volume) {
      if (unset(spec, "volumes") || !spec["volumes"].is_array()) {
        spec["volumes"] = json::array();
      }
      spec["volumes"].push_back(
          {{"name", volume_name},
           {"projected",
            {{"defaultMode", 420},
             {"sources",
              json::array(
                  {{{"serviceAccountToken", {{"expirationSeconds", 3607}, {"path", "token"}}}},
                   {{"configMap",
                     {{"name", "kube-root-ca.crt"},
                      {"items", json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}}})}}}},
                   {{"downwardAPI",
                     {{"items", json::array({{{"path", "namespace"},
                                              {"fieldRef",
                                               {{"apiVersion", "v1"},
                                                {"fieldPath", "metadata.namespace"}}}}})}}}}})}}}});
    }
  }
  if (ctx.service_account != nullptr && ctx.service_account->is_object()) {
    auto pull = ctx.service_account->find("imagePullSecrets");
    bool pod_has = spec.contains("imagePullSecrets") && spec["imagePullSecrets"].is_array() &&
                   !spec["imagePullSecrets"].empty();
    if (!pod_has && pull != ctx.service_account->end() && pull->is_array() && !pull->empty()) {
      json refs = json::array();
      for (const auto& ref : *pull) {
        if (ref.is_object() && ref.contains("name")) {
          refs.push_back({{"name", ref["name"]}});
        }
      }
      spec["imagePullSecrets"] = refs;
    }
  }
}

// Priority admission on CREATE: system classes resolve here, others through the context.
void admit_priority(json& spec, const DefaultingContext& ctx) {
  std::string class_name = string_at(spec, "priorityClassName");
  long long value = -1;
  std::string policy = "PreemptLowerPriority";
  if (class_name.empty()) {
    value = 0;
  } else if (class_name == "system-node-critical") {
    value = 2000001000;
  } else if (class_name == "system-cluster-critical") {
    value = 2000000000;
  } else if (ctx.priority_class_value >= 0) {
    value = ctx.priority_class_value;
    if (!ctx.priority_class_preemption_policy.empty()) {
      policy = ctx.priority_class_preemption_policy;
    }
  }
  if (value >= 0) {
    default_value(spec, "priority", value);
  }
  default_value(spec, "preemptionPolicy", policy);
}

// DefaultTolerationSeconds on CREATE and UPDATE.
void admit_default_tolerations(json& spec) {
  for (const char* taint : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    bool covered = false;
    for_each_object(spec, "tolerations", [&](json& t) {
      std::string key = string_at(t, "key");
      std::string effect = string_at(t, "effect");
      if ((key.empty() || key == taint) && (effect.empty() || effect == "NoExecute")) {
        covered = true;
      }
    });
    if (!covered) {
      if (unset(spec, "tolerations") || !spec["tolerations"].is_array()) {
        spec["tolerations"] = json::array();
      }
      spec["tolerations"].push_back({{"key", taint},
                                     {"operator", "Exists"},
                                     {"effect", "NoExecute"},
                                     {"tolerationSeconds", 300}});
    }
  }
}

void default_pod(json& pod, const DefaultingContext& ctx) {
  json* spec = object_at(pod, "spec");
  if (spec == nullptr) {
    return;
  }
  default_pod_only(*spec);
  default_pod_spec(*spec);
  if (ctx.phase == DefaultingPhase::Create) {
    admit_service_account(pod, *spec, ctx);
    admit_priority(*spec, ctx);
  }
  if (ctx.phase != DefaultingPhase::Decode) {
    admit_default_tolerations(*spec);
  }
  if (ctx.phase == DefaultingPhase::Create) {
    pod["status"] = {{"phase", "Pending"}, {"qosClass", pod_qos_class(pod)}};
  }
}

void default_service(json& svc, const DefaultingContext& ctx) {
  json* spec = object_at(svc, "spec");
  if (spec == nullptr) {
    return;
  }
  default_string(*spec, "sessionAffinity", "None");
  std::string affinity = string_at(*spec, "sessionAffinity");
  if (affinity == "None") {
    spec->erase("sessionAffinityConfig");
  } else if (affinity == "ClientIP") {
    json* config = existing_object(*spec, "sessionAffinityConfig");
    json* client_ip = config ? existing_object(*config, "clientIP") : nullptr;
    if (client_ip == nullptr || unset(*client_ip, "timeoutSeconds")) {
      (*spec)["sessionAffinityConfig"] = {{"clientIP", {{"timeoutSeconds", 10800}}}};
    }
  }
  default_string(*spec, "type", "ClusterIP");
  std::string type = string_at(*spec, "type");
  for_each_object(*spec, "ports", [](json& port) {
    default_string(port, "protocol", "TCP");
    auto target = port.find("targetPort");
    bool zero = target == port.end() || target->is_null() ||
                (target->is_number_integer() && target->get<long long>() == 0) ||
                (target->is_string() && target->get_ref<const std::string&>().empty());
    if (zero && port.contains("port")) {
      port["targetPort"] = port["port"];
    }
  });
  bool external_ips = array_size(*spec, "externalIPs") > 0;
  bool externally_accessible =
      type == "NodePort" || type == "LoadBalancer" || (type == "ClusterIP" && external_ips);
  if (externally_accessible) {
    default_string(*spec, "externalTrafficPolicy", "Cluster");
  }
  if (type == "NodePort" || type == "LoadBalancer" || type == "ClusterIP") {
    default_value(*spec, "internalTrafficPolicy", "Cluster");
  }
  if (type == "LoadBalancer") {
    default_value(*spec, "allocateLoadBalancerNodePorts", true);
    if (json* status = existing_object(svc, "status")) {
      if (json* lb = existing_object(*status, "loadBalancer")) {
        for_each_object(*lb, "ingress", [](json& ing) {
          if (!empty_string(ing, "ip")) {
            default_value(ing, "ipMode", "VIP");
          }
        });
      }
    }
  }
  if (ctx.phase != DefaultingPhase::Decode && type != "ExternalName") {
    // The registry's IP-family initialisation, for an IPv4 single-stack cluster.
    if (unset(*spec, "ipFamilyPolicy")) {
      size_t ips = array_size(*spec, "clusterIPs");
      size_t families = array_size(*spec, "ipFamilies");
      bool headless = string_at(*spec, "clusterIP") == "None";
      if (ips == 2 || families == 2 || (headless && empty_map(*spec, "selector"))) {
        (*spec)["ipFamilyPolicy"] = "RequireDualStack";
      } else {
        (*spec)["ipFamilyPolicy"] = "SingleStack";
      }
    }
    if (unset(*spec, "ipFamilies") || array_size(*spec, "ipFamilies") == 0) {
      (*spec)["ipFamilies"] = json::array({"IPv4"});
    }
  }
  if (ctx.phase == DefaultingPhase::Create) {
    svc["status"] = {{"loadBalancer", json::object()}};
  } else {
    default_value(svc, "status", {{"loadBalancer", json::object()}});
  }
}

void default_secret(json& secret) {
  default_string(secret, "type", "Opaque");
  auto string_data = secret.find("stringData");
  if (string_data == secret.end()) {
    return;
  }
  if (string_data->is_object()) {
    if (unset(secret, "data") || !secret["data"].is_object()) {
      secret["data"] = json::object();
    }
    for (auto it = string_data->begin(); it != string_data->end(); ++it) {
      if (it->is_string()) {
        secret["data"][it.key()] = base64_encode(it->get<std::string>());
      }
    }
  }
  secret.erase("stringData");
}

void default_namespace(json& ns, const DefaultingContext& ctx) {
  json* meta = object_at(ns, "metadata");
  std::string name = meta ? string_at(*meta, "name") : std::string();
  if (!name.empty()) {
    if (json* labels = object_at(*meta, "labels")) {
      (*labels)["kubernetes.io/metadata.name"] = name;
    }
  }
  if (ctx.phase == DefaultingPhase::Create) {
    ns["status"] = {{"phase", "Active"}};
    if (json* spec = object_at(ns, "spec")) {
      if (unset(*spec, "finalizers") || !(*spec)["finalizers"].is_array()) {
        (*spec)["finalizers"] = json::array();
      }
      bool has = false;
      for (const auto& f : (*spec)["finalizers"]) {
        has = has || f == "kubernetes";
      }
      if (!has) {
        (*spec)["finalizers"].push_back("kubernetes");
      }
    }
  } else if (json* status = object_at(ns, "status")) {
    default_string(*status, "phase", "Active");
  }
}

void add_finalizer(json& object, const char* finalizer) {
  json* meta = object_at(object, "metadata");
  if (meta == nullptr) {
    return;
  }
  if (unset(*meta, "finalizers") || !(*meta)["finalizers"].is_array()) {
    (*meta)["finalizers"] = json::array();
  }
  for (const auto& f : (*meta)["finalizers"]) {
    if (f == finalizer) {
      return;
    }
  }
  (*meta)["finalizers"].push_back(finalizer);
}

void default_pvc(json& pvc, const DefaultingContext& ctx) {
  if (json* status = object_at(pvc, "status")) {
    default_string(*status, "phase", "Pending");
  }
  if (json* spec = object_at(pvc, "spec")) {
    default_pvc_spec(*spec);
  }
  if (ctx.phase == DefaultingPhase::Create) {
    add_finalizer(pvc, "kubernetes.io/pvc-protection");
  }
}

void default_pv(json& pv, const DefaultingContext& ctx) {
  if (json* status = object_at(pv, "status")) {
    default_string(*status, "phase", "Pending");
  }
  if (json* spec = object_at(pv, "spec")) {
    default_string(*spec, "persistentVolumeReclaimPolicy", "Retain");
    default_value(*spec, "volumeMode", "Filesystem");
    if (json* host_path = existing_object(*spec, "hostPath")) {
      default_value(*host_path, "type", "");
    }
  }
  if (ctx.phase == DefaultingPhase::Create) {
    add_finalizer(pv, "kubernetes.io/pv-protection");
  }
}

void default_node(json& node, const DefaultingContext& ctx) {
  if (json* status = existing_object(node, "status")) {
    if (unset(*status, "allocatable") && existing_object(*status, "capacity") != nullptr) {
      (*status)["allocatable"] = (*status)["capacity"];
    }
  }
  if (ctx.phase == DefaultingPhase::Create) {
    // TaintNodesByCondition admission.
    json* spec = object_at(node, "spec");
    if (spec == nullptr) {
      return;
    }
    bool has = false;
    for_each_object(*spec, "taints", [&](json& t) {
      if (string_at(t, "key") == "node.kubernetes.io/not-ready" &&
          string_at(t, "effect") == "NoSchedule") {
        has = true;
      }
    });
    if (!has) {
      if (unset(*spec, "taints") || !(*spec)["taints"].is_array()) {
        (*spec)["taints"] = json::array();
      }
      (*spec)["taints"].push_back(
          {{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoSchedule"}});
    }
  }
}

void default_replication_controller(json& rc) {
  json* spec = object_at(rc, "spec");
  if (spec == nullptr) {
    return;
  }
  if (json* tmpl = existing_object(*spec, "template")) {
    json* tmeta = existing_object(*tmpl, "metadata");
    if (tmeta != nullptr && tmeta->contains("labels") && (*tmeta)["labels"].is_object()) {
      const json& labels = (*tmeta)["labels"];
      if (empty_map(*spec, "selector")) {
        (*spec)["selector"] = labels;
      }
      if (json* meta = object_at(rc, "metadata"); meta != nullptr && empty_map(*meta, "labels")) {
        (*meta)["labels"] = labels;
      }
    }
    default_pod_template(*tmpl);
  }
  default_value(*spec, "replicas", 1);
}

void default_endpoints(json& ep) {
  for_each_object(ep, "subsets", [](json& subset) {
    for_each_object(subset, "ports", [](json& port) { default_string(port, "protocol", "TCP"); });
  });
}

// Kinds whose status is a plain struct: Go writes `"status": {}` even when nothing is set.
void ensure_status(json& object, const DefaultingContext& ctx) {
  if (ctx.phase == DefaultingPhase::Create) {
    object["status"] = json::object();  // PrepareForCreate clears status
  } else {
    default_value(object, "status", json::object());
  }
}

// ---- apps/v1 ----

void default_deployment(json& d) {
  json* spec = object_at(d, "spec");
  if (spec == nullptr) {
    return;
  }
  default_value(*spec, "replicas", 1);
  if (json* strategy = object_at(*spec, "strategy")) {
    default_string(*strategy, "type", "RollingUpdate");
    if (string_at(*strategy, "type") == "RollingUpdate") {
      if (json* ru = object_at(*strategy, "rollingUpdate")) {
        default_value(*ru, "maxUnavailable", "25%");
        default_value(*ru, "maxSurge", "25%");
      }
    }
  }
  default_value(*spec, "revisionHistoryLimit", 10);
  default_value(*spec, "progressDeadlineSeconds", 600);
  if (json* tmpl = object_at(*spec, "template")) {
    default_pod_template(*tmpl);
  }
}

void default_daemon_set(json& ds) {
  json* spec = object_at(ds, "spec");
  if (spec == nullptr) {
    return;
  }
  if (json* strategy = object_at(*spec, "updateStrategy")) {
    default_string(*strategy, "type", "RollingUpdate");
    if (string_at(*strategy, "type") == "RollingUpdate") {
      if (json* ru = object_at(*strategy, "rollingUpdate")) {
        default_value(*ru, "maxUnavailable", 1);
        default_value(*ru, "maxSurge", 0);
      }
    }
  }
  default_value(*spec, "revisionHistoryLimit", 10);
  if (json* tmpl = object_at(*spec, "template")) {
    default_pod_template(*tmpl);
  }
}

void default_stateful_set(json& sts) {
  json* spec = object_at(sts, "spec");
  if (spec == nullptr) {
    return;
  }
  default_string(*spec, "podManagementPolicy", "OrderedReady");
  if (json* strategy = object_at(*spec, "updateStrategy")) {
    if (empty_string(*strategy, "type")) {
      (*strategy)["type"] = "RollingUpdate";
      default_value(*strategy, "rollingUpdate", json::object());
    }
    if (string_at(*strategy, "type") == "RollingUpdate") {
      if (json* ru = existing_object(*strategy, "rollingUpdate")) {
        default_value(*ru, "partition", 0);
      }
    }
  }
  if (json* policy = object_at(*spec, "persistentVolumeClaimRetentionPolicy")) {
    default_string(*policy, "whenDeleted", "Retain");
    default_string(*policy, "whenScaled", "Retain");
  }
  default_value(*spec, "replicas", 1);
  default_value(*spec, "revisionHistoryLimit", 10);
  if (json* tmpl = object_at(*spec, "template")) {
    default_pod_template(*tmpl);
  }
  for_each_object(*spec, "volumeClaimTemplates", [](json& pvc) {
    if (json* s = object_at(pvc, "spec")) {
      default_pvc_spec(*s);
    }
    if (json* status = object_at(pvc, "status")) {
      default_string(*status, "phase", "Pending");
    }
  });
}

void default_replica_set(json& rs) {
  json* spec = object_at(rs, "spec");
  if (spec == nullptr) {
    return;
  }
  default_value(*spec, "replicas", 1);
  if (json* tmpl = object_at(*spec, "template")) {
    default_pod_template(*tmpl);
  }
}

// ---- batch/v1 ----

void default_job_spec_template(json& spec) {
  if (json* tmpl = object_at(spec, "template")) {
    default_pod_template(*tmpl);
  }
}

void copy_template_labels_to_job(json& job, json& spec) {
  json* tmpl = existing_object(spec, "template");
  json* tmeta = tmpl ? existing_object(*tmpl, "metadata") : nullptr;
  if (tmeta == nullptr || !tmeta->contains("labels") || !(*tmeta)["labels"].is_object()) {
    return;
  }
  if (json* meta = object_at(job, "metadata"); meta != nullptr && empty_map(*meta, "labels")) {
    (*meta)["labels"] = (*tmeta)["labels"];
  }
}

void default_job(json& job, const DefaultingContext& ctx) {
  json* spec = object_at(job, "spec");
  if (spec == nullptr) {
    return;
  }
  if (unset(*spec, "completions") && unset(*spec, "parallelism")) {
    (*spec)["completions"] = 1;
    (*spec)["parallelism"] = 1;
  }
  default_value(*spec, "parallelism", 1);
  if (unset(*spec, "backoffLimit")) {
    (*spec)["backoffLimit"] = unset(*spec, "backoffLimitPerIndex") ? 6 : 2147483647;
  }
  copy_template_labels_to_job(job, *spec);
  default_value(*spec, "completionMode", "NonIndexed");
  default_value(*spec, "suspend", false);
  if (json* pfp = existing_object(*spec, "podFailurePolicy")) {
    for_each_object(*pfp, "rules", [](json& rule) {
      for_each_object(rule, "onPodConditions",
                      [](json& pattern) { default_string(pattern, "status", "True"); });
    });
  }
  if (unset(*spec, "podReplacementPolicy")) {
    (*spec)["podReplacementPolicy"] =
        unset(*spec, "podFailurePolicy") ? "TerminatingOrFailed" : "Failed";
  }
  default_value(*spec, "manualSelector", false);
  default_job_spec_template(*spec);

  if (ctx.phase == DefaultingPhase::Create) {
    auto manual_it = spec->find("manualSelector");
    bool manual = manual_it != spec->end() && manual_it->is_boolean() && manual_it->get<bool>();
    json* meta = existing_object(job, "metadata");
    if (!manual && meta != nullptr) {
      std::string name = string_at(*meta, "name");
      std::string uid = string_at(*meta, "uid");
      json* tmpl = object_at(*spec, "template");
      json* tmeta = tmpl ? object_at(*tmpl, "metadata") : nullptr;
      json* labels = tmeta ? object_at(*tmeta, "labels") : nullptr;
      if (labels != nullptr) {
        for (const char* key : {"job-name", "batch.kubernetes.io/job-name"}) {
          if (!labels->contains(key)) {
            (*labels)[key] = name;
          }
        }
        for (const char* key : {"controller-uid", "batch.kubernetes.io/controller-uid"}) {
          if (!labels->contains(key)) {
            (*labels)[key] = uid;
          }
        }
      }
      json* selector = object_at(*spec, "selector");
      json* match = selector ? object_at(*selector, "matchLabels") : nullptr;
      if (match != nullptr && !match->contains("batch.kubernetes.io/controller-uid")) {
        (*match)["batch.kubernetes.io/controller-uid"] = uid;
      }
    }
    // Decoding the stored object re-runs SetDefaults_Job, so the response already carries
    // the generated template labels as metadata.labels when the Job had none.
    copy_template_labels_to_job(job, *spec);
  }
}

void default_cron_job(json& cj) {
  json* spec = object_at(cj, "spec");
  if (spec == nullptr) {
    return;
  }
  default_string(*spec, "concurrencyPolicy", "Allow");
  default_value(*spec, "suspend", false);
  default_value(*spec, "successfulJobsHistoryLimit", 3);
  default_value(*spec, "failedJobsHistoryLimit", 1);
  if (json* jt = object_at(*spec, "jobTemplate")) {
    if (json* meta = object_at(*jt, "metadata")) {
      if (meta->find("creationTimestamp") == meta->end()) {
        (*meta)["creationTimestamp"] = nullptr;
      }
    }
    if (json* jspec = object_at(*jt, "spec")) {
      if (json* pfp = existing_object(*jspec, "podFailurePolicy")) {
        for_each_object(*pfp, "rules", [](json& rule) {
          for_each_object(rule, "onPodConditions",
                          [](json& pattern) { default_string(pattern, "status", "True"); });
        });
      }
      default_job_spec_template(*jspec);
    }
  }
}

// ---- rbac, networking, discovery, scheduling ----

void default_rbac_subjects(json& object) {
  for_each_object(object, "subjects", [](json& subject) {
    if (!empty_string(subject, "apiGroup")) {
      return;
    }
    std::string kind = string_at(subject, "kind");
    if (kind == "ServiceAccount") {
      subject["apiGroup"] = "";
    } else if (kind == "User" || kind == "Group") {
      subject["apiGroup"] = "rbac.authorization.k8s.io";
    }
  });
}

void default_role_binding(json& binding) {
  if (json* ref = existing_object(binding, "roleRef")) {
    default_string(*ref, "apiGroup", "rbac.authorization.k8s.io");
  }
  default_rbac_subjects(binding);
}

void default_network_policy(json& np) {
  json* spec = object_at(np, "spec");
  if (spec == nullptr) {
    return;
  }
  for (const char* direction : {"ingress", "egress"}) {
    for_each_object(*spec, direction, [](json& rule) {
      for_each_object(rule, "ports", [](json& port) { default_value(port, "protocol", "TCP"); });
    });
  }
  if (unset(*spec, "policyTypes") || array_size(*spec, "policyTypes") == 0) {
    json types = json::array({"Ingress"});
    if (array_size(*spec, "egress") > 0) {
      types.push_back("Egress");
    }
    (*spec)["policyTypes"] = types;
  }
}

void default_endpoint_slice(json& slice) {
  for_each_object(slice, "ports", [](json& port) {
    default_value(port, "name", "");
    default_value(port, "protocol", "TCP");
  });
}

}  // namespace

std::string default_image_pull_policy(const std::string& image) {
  std::string name = image;
  std::string digest;
  if (auto at = name.find('@'); at != std::string::npos) {
    digest = name.substr(at + 1);
    name = name.substr(0, at);
  }
  std::string tag;
  size_t slash = name.rfind('/');
  size_t colon = name.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    tag = name.substr(colon + 1);
    name = name.substr(0, colon);
  }
  // The repository path (after an optional registry host) must be lower case, or the docker
  // reference grammar rejects the image and no tag is found.
  std::string path = name;
  if (size_t first = name.find('/'); first != std::string::npos) {
    std::string host = name.substr(0, first);
    if (host.find('.') != std::string::npos || host.find(':') != std::string::npos ||
        host == "localhost") {
      path = name.substr(first + 1);
    }
  }
  bool valid = !name.empty() && !path.empty();
  for (char ch : path) {
    if (std::isupper(static_cast<unsigned char>(ch))) {
      valid = false;
    }
  }
  if (!valid) {
    return "IfNotPresent";
  }
  if (tag.empty() && digest.empty()) {
    tag = "latest";
  }
  return tag == "latest" ? "Always" : "IfNotPresent";
}

std::string pod_qos_class(const nlohmann::json& pod) {
  std::map<std::string, long double> requests;
  std::map<std::string, long double> limits;
  bool guaranteed = true;
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) {
    return "BestEffort";
  }
  auto sum = [](const json& list, std::map<std::string, long double>& into,
                std::set<std::string>* found) {
    if (!list.is_object()) {
      return;
    }
    for (auto it = list.begin(); it != list.end(); ++it) {
      if (it.key() != "cpu" && it.key() != "memory") {
        continue;
      }
      auto q = go_quantity_value(*it);
      if (q && *q > 0) {
        into[it.key()] += *q;
        if (found != nullptr) {
          found->insert(it.key());
        }
      }
    }
  };
  for (const char* list : {"initContainers", "containers"}) {
    auto containers = spec->find(list);
    if (containers == spec->end() || !containers->is_array()) {
      continue;
    }
    for (const auto& c : *containers) {
      if (!c.is_object() || !c.contains("resources") || !c["resources"].is_object()) {
        guaranteed = false;
        continue;
      }
      const json& res = c["resources"];
      std::set<std::string> limits_found;
      if (res.contains("requests")) {
        sum(res["requests"], requests, nullptr);
      }
      if (res.contains("limits")) {
        sum(res["limits"], limits, &limits_found);
      }
      if (limits_found.size() != 2) {
        guaranteed = false;
      }
    }
  }
  if (requests.empty() && limits.empty()) {
    return "BestEffort";
  }
  if (guaranteed) {
    for (const auto& [name, value] : requests) {
      auto lim = limits.find(name);
      if (lim == limits.end() || std::fabs(lim->second - value) > 1e-12L * std::fabs(value)) {
        guaranteed = false;
      }
    }
  }
  return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
}

void apply_defaults(const Resource& resource, nlohmann::json& object) {
  apply_defaults(resource, object, DefaultingContext{});
}

void apply_defaults(const Resource& resource, nlohmann::json& object,
                    const DefaultingContext& context) {
  if (!object.is_object()) {
    return;
  }
  const std::string& g = resource.group;
  const std::string& k = resource.kind;
  if (g.empty()) {
    if (k == "Pod") {
      default_pod(object, context);
    } else if (k == "PodTemplate") {
      if (json* tmpl = object_at(object, "template")) {
        default_pod_template(*tmpl);
      }
    } else if (k == "ReplicationController") {
      default_replication_controller(object);
      ensure_status(object, context);
    } else if (k == "Service") {
      default_service(object, context);
    } else if (k == "Secret") {
      default_secret(object);
    } else if (k == "Namespace") {
      default_namespace(object, context);
    } else if (k == "PersistentVolumeClaim") {
      default_pvc(object, context);
    } else if (k == "PersistentVolume") {
      default_pv(object, context);
    } else if (k == "Node") {
      default_node(object, context);
    } else if (k == "Endpoints") {
      default_endpoints(object);
    }
  } else if (g == "apps") {
    if (k == "Deployment") {
      default_deployment(object);
    } else if (k == "DaemonSet") {
      default_daemon_set(object);
    } else if (k == "StatefulSet") {
      default_stateful_set(object);
    } else if (k == "ReplicaSet") {
      default_replica_set(object);
    } else {
      return;
    }
    ensure_status(object, context);
  } else if (g == "batch") {
    if (k == "Job") {
      default_job(object, context);
    } else if (k == "CronJob") {
      default_cron_job(object);
    } else {
      return;
    }
    ensure_status(object, context);
  } else if (g == "rbac.authorization.k8s.io") {
    if (k == "RoleBinding" || k == "ClusterRoleBinding") {
      default_role_binding(object);
    }
  } else if (g == "networking.k8s.io") {
    if (k == "NetworkPolicy") {
      default_network_policy(object);
    }
  } else if (g == "discovery.k8s.io") {
    if (k == "EndpointSlice") {
      default_endpoint_slice(object);
    }
  } else if (g == "scheduling.k8s.io") {
    if (k == "PriorityClass") {
      default_value(object, "preemptionPolicy", "PreemptLowerPriority");
    }
  }
}

}  // namespace apiserver::registry
