#include "console/model/object_template.h"

namespace console::model {

namespace {

using json = nlohmann::json;

json container(const char* image, json command = nullptr) {
  json c = {{"name", "main"}, {"image", image}};
  if (!command.is_null()) {
    c["command"] = std::move(command);
  }
  return c;
}

// A pod template labelled app=<name>, as the workload kinds want it.
json pod_template(const std::string& name, json spec) {
  return {{"metadata", {{"labels", {{"app", name}}}}}, {"spec", std::move(spec)}};
}

json selector(const std::string& name) {
  return {{"matchLabels", {{"app", name}}}};
}

// What a kind needs besides apiVersion, kind and metadata; null for a kind with no template.
json body(const ApiResource& r, const std::string& name, const std::string& namespace_) {
  const std::string key = r.key();
  const json web = json::array({container("nginx:1.27")});
  const json sleeper = json::array({container("busybox:1.36", {"sleep", "3600"})});
  if (key == "core/configmaps") {
    return {{"data", {{"key", "value"}}}};
  }
  if (key == "core/secrets") {
    return {{"type", "Opaque"}, {"stringData", {{"username", "admin"}}}};
  }
  if (key == "core/pods") {
    return {{"spec", {{"containers", sleeper}}}};
  }
  if (key == "core/services") {
    return {{"spec",
             {{"selector", {{"app", name}}},
              {"ports", json::array({{{"name", "http"}, {"port", 80}, {"targetPort", 8080}}})}}}};
  }
  if (key == "core/persistentvolumeclaims") {
    return {{"spec",
             {{"accessModes", {"ReadWriteOnce"}},
              {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  }
  if (key == "core/resourcequotas") {
    return {{"spec", {{"hard", {{"pods", "10"}}}}}};
  }
  if (key == "core/limitranges") {
    return {{"spec",
             {{"limits", json::array({{{"type", "Container"}, {"default", {{"cpu", "500m"}}}}})}}}};
  }
  if (key == "apps/deployments") {
    return {{"spec",
             {{"replicas", 1},
              {"selector", selector(name)},
              {"template", pod_template(name, {{"containers", web}})}}}};
  }
  if (key == "apps/statefulsets") {
    return {{"spec",
             {{"replicas", 1},
              {"serviceName", name},
              {"selector", selector(name)},
              {"template", pod_template(name, {{"containers", web}})}}}};
  }
  if (key == "apps/daemonsets") {
    return {
        {"spec",
         {{"selector", selector(name)}, {"template", pod_template(name, {{"containers", web}})}}}};
  }
  const json job_spec = {
      {"template",
       {{"spec",
         {{"restartPolicy", "Never"},
          {"containers", json::array({container("busybox:1.36", {"echo", "hello"})})}}}}}};
  if (key == "batch/jobs") {
    return {{"spec", job_spec}};
  }
  if (key == "batch/cronjobs") {
    return {{"spec", {{"schedule", "*/5 * * * *"}, {"jobTemplate", {{"spec", job_spec}}}}}};
  }
  if (key == "networking.k8s.io/ingresses") {
    const json backend = {{"service", {{"name", name}, {"port", {{"number", 80}}}}}};
    const json path = {{"path", "/"}, {"pathType", "Prefix"}, {"backend", backend}};
    return {{"spec",
             {{"rules", json::array({{{"host", name + ".example.com"},
                                      {"http", {{"paths", json::array({path})}}}}})}}}};
  }
  if (key == "networking.k8s.io/networkpolicies") {
    return {{"spec", {{"podSelector", json::object()}, {"policyTypes", {"Ingress"}}}}};
  }
  if (key == "policy/poddisruptionbudgets") {
    return {{"spec", {{"minAvailable", 1}, {"selector", selector(name)}}}};
  }
  const json read_configmaps = json::array(
      {{{"apiGroups", {""}}, {"resources", {"configmaps"}}, {"verbs", {"get", "list", "watch"}}}});
  if (key == "rbac.authorization.k8s.io/roles" || key == "rbac.authorization.k8s.io/clusterroles") {
    return {{"rules", read_configmaps}};
  }
  const json default_account =
      json::array({{{"kind", "ServiceAccount"},
                    {"name", "default"},
                    {"namespace", namespace_.empty() ? "default" : namespace_}}});
  if (key == "rbac.authorization.k8s.io/rolebindings") {
    return {
        {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", name}}},
        {"subjects", default_account}};
  }
  if (key == "rbac.authorization.k8s.io/clusterrolebindings") {
    return {
        {"roleRef",
         {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "view"}}},
        {"subjects", default_account}};
  }
  return nullptr;
}

}  // namespace

json object_template(const ApiResource& resource, std::string_view namespace_) {
  const std::string name =
      "new-" + (resource.singular.empty() ? resource.resource : resource.singular);
  const std::string ns = namespace_.empty() ? "default" : std::string(namespace_);
  json object = {{"apiVersion", resource.group.empty() ? resource.version
                                                       : resource.group + "/" + resource.version},
                 {"kind", resource.kind},
                 {"metadata", {{"name", name}}}};
  if (resource.namespaced) {
    object["metadata"]["namespace"] = ns;
  }
  json extra = body(resource, name, resource.namespaced ? ns : "");
  if (extra.is_object()) {
    object.update(extra);
  }
  return object;
}

json duplicate_object(const json& object) {
  json copy = object;
  if (!copy.is_object()) {
    return copy;
  }
  copy.erase("status");
  json& metadata = copy["metadata"];
  if (!metadata.is_object()) {
    metadata = json::object();
  }
  for (const char* key :
       {"managedFields", "uid", "resourceVersion", "creationTimestamp", "generation", "selfLink",
        "deletionTimestamp", "deletionGracePeriodSeconds", "ownerReferences", "finalizers"}) {
    metadata.erase(key);
  }
  if (metadata.contains("annotations") && metadata["annotations"].is_object()) {
    metadata["annotations"].erase("kubectl.kubernetes.io/last-applied-configuration");
    if (metadata["annotations"].empty()) {
      metadata.erase("annotations");
    }
  }
  if (metadata.contains("name") && metadata["name"].is_string()) {
    metadata["name"] = metadata["name"].get<std::string>() + "-copy";
  }
  const std::string kind = copy.value("kind", "");
  json* spec = copy.contains("spec") && copy["spec"].is_object() ? &copy["spec"] : nullptr;
  if (spec != nullptr && kind == "Service") {
    for (const char* key : {"clusterIP", "clusterIPs", "healthCheckNodePort"}) {
      spec->erase(key);
    }
    if (spec->contains("ports") && (*spec)["ports"].is_array()) {
      for (json& port : (*spec)["ports"]) {
        if (port.is_object()) {
          port.erase("nodePort");
        }
      }
    }
  }
  if (spec != nullptr && kind == "Job") {
    // The server generated the selector and these labels for the original Job.
    spec->erase("selector");
    json* labels = nullptr;
    if (spec->contains("template") && (*spec)["template"].is_object() &&
        (*spec)["template"].contains("metadata") &&
        (*spec)["template"]["metadata"].contains("labels") &&
        (*spec)["template"]["metadata"]["labels"].is_object()) {
      labels = &(*spec)["template"]["metadata"]["labels"];
    }
    for (json* l : {labels, metadata.contains("labels") && metadata["labels"].is_object()
                                ? &metadata["labels"]
                                : nullptr}) {
      if (l != nullptr) {
        for (const char* key : {"controller-uid", "batch.kubernetes.io/controller-uid", "job-name",
                                "batch.kubernetes.io/job-name"}) {
          l->erase(key);
        }
      }
    }
  }
  if (spec != nullptr && kind == "PersistentVolumeClaim") {
    spec->erase("volumeName");
  }
  return copy;
}

}  // namespace console::model
