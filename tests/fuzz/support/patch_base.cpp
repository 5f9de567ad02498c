#include "support/patch_base.h"

#include <cstdio>
#include <cstdlib>

namespace fuzz {

namespace {

namespace patch = apiserver::endpoints::patch;
using nlohmann::json;

constexpr const char* kDeployment = R"({
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "default", "uid": "3f1c2a9e-0000-4000-8000-000000000001",
    "resourceVersion": "42", "generation": 2, "creationTimestamp": "2025-01-02T03:04:05Z",
    "labels": {"app": "web", "tier": "frontend"},
    "annotations": {"deployment.kubernetes.io/revision": "1"},
    "finalizers": ["example.com/keep"]},
  "spec": {"replicas": 2, "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600,
    "selector": {"matchLabels": {"app": "web"}},
    "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
    "template": {"metadata": {"labels": {"app": "web"}},
      "spec": {"restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler", "securityContext": {},
        "containers": [
          {"name": "app", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent",
           "ports": [{"containerPort": 80, "protocol": "TCP", "name": "http"}],
           "env": [{"name": "MODE", "value": "prod"},
                   {"name": "POD", "valueFrom": {"fieldRef": {"apiVersion": "v1",
                                                              "fieldPath": "metadata.name"}}}],
           "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}},
           "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}],
           "terminationMessagePath": "/dev/termination-log",
           "terminationMessagePolicy": "File"},
          {"name": "sidecar", "image": "busybox", "args": ["sleep", "3600"],
           "imagePullPolicy": "Always", "terminationMessagePath": "/dev/termination-log",
           "terminationMessagePolicy": "File"}],
        "volumes": [{"name": "config", "configMap": {"name": "web-config", "defaultMode": 420}}],
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web",
                         "effect": "NoSchedule"}]}}},
  "status": {"observedGeneration": 2, "replicas": 2, "readyReplicas": 2,
    "conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"}]}
})";

// The apply configuration of manager "kubectl" that owns part of the base.
constexpr const char* kApplied = R"({
  "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default",
    "labels": {"app": "web"}},
  "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
    "template": {"metadata": {"labels": {"app": "web"}},
      "spec": {"containers": [{"name": "app", "image": "nginx:1.27",
                               "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}}}
})";

[[noreturn]] void base_failed(const char* what) {
  std::fprintf(stderr, "fuzz patch base: %s\n", what);
  std::abort();
}

patch::Writer writer(const char* manager) {
  patch::Writer w;
  w.manager = manager;
  w.api_version = "apps/v1";
  w.now = "2025-01-02T03:04:05Z";
  w.reset_fields.insert({"f:status"});
  return w;
}

json make_base() {
  const json object = json::parse(kDeployment);
  json created =
      patch::update_managed_fields(deployment_type(), nullptr, object, writer("kubectl-create"));
  auto applied =
      patch::apply(deployment_type(), &created, json::parse(kApplied), writer("kubectl"), true);
  if (applied.outcome != patch::ApplyResult::Outcome::Ok) {
    base_failed(applied.message.c_str());
  }
  return applied.object;
}

}  // namespace

const patch::ObjectType& deployment_type() {
  static const patch::ObjectType type = [] {
    auto found = patch::ObjectType::builtin("apps", "v1", "Deployment");
    if (!found) {
      base_failed("the facts have no apps/v1 Deployment");
    }
    return *found;
  }();
  return type;
}

const json& patch_base() {
  static const json base = make_base();
  return base;
}

patch::Writer patch_writer() {
  return writer("fuzz");
}

void record_update(const json& patched) {
  if (patched.is_object()) {
    (void)patch::update_managed_fields(deployment_type(), &patch_base(), patched, patch_writer())
        .dump();
  }
}

}  // namespace fuzz
