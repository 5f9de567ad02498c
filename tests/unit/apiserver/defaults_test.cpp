#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "builtin_resources.h"
#include "registry/defaults.h"
#include "registry/objects.h"
#include "registry/service_ips.h"

using apiserver::registry::apply_defaults;
using apiserver::registry::default_image_pull_policy;
using apiserver::registry::DefaultingContext;
using apiserver::registry::DefaultingPhase;
using apiserver::registry::FieldError;
using apiserver::registry::pod_qos_class;
using apiserver::registry::render_field_errors;
using apiserver::registry::Resource;
using apiserver::registry::ServiceIpAllocator;
using apiserver::registry::ServiceIpOptions;
using apiserver::testing::resource;
using nlohmann::json;

namespace {

const Resource kPods = resource("", "pods", "Pod");
const Resource kServices = resource("", "services", "Service");
const Resource kSecrets = resource("", "secrets", "Secret");
const Resource kNamespaces = resource("", "namespaces", "Namespace");
const Resource kPvcs = resource("", "persistentvolumeclaims", "PersistentVolumeClaim");
const Resource kRcs = resource("", "replicationcontrollers", "ReplicationController");
const Resource kConfigMaps = resource("", "configmaps", "ConfigMap");
const Resource kDeployments = resource("apps", "deployments", "Deployment");
const Resource kStatefulSets = resource("apps", "statefulsets", "StatefulSet");
const Resource kDaemonSets = resource("apps", "daemonsets", "DaemonSet");
const Resource kReplicaSets = resource("apps", "replicasets", "ReplicaSet");
const Resource kJobs = resource("batch", "jobs", "Job");
const Resource kCronJobs = resource("batch", "cronjobs", "CronJob");
const Resource kRoleBindings = resource("rbac.authorization.k8s.io", "rolebindings", "RoleBinding");

DefaultingContext phase(DefaultingPhase p) {
  DefaultingContext ctx;
  ctx.phase = p;
  return ctx;
}

DefaultingContext create_with_suffix() {
  DefaultingContext ctx;
  ctx.phase = DefaultingPhase::Create;
  return ctx;
}

// The container as `kubectl run`/`kubectl create deployment` send it.
json kubectl_container(const std::string& image) {
  return {{"name", "nginx"}, {"image", image}, {"resources", json::object()}};
}

// A container after defaulting, as a v1.32 server returns it (without admission mounts).
json defaulted_container(const std::string& image, const std::string& pull_policy) {
  return {{"name", "nginx"},
          {"image", image},
          {"imagePullPolicy", pull_policy},
          {"resources", json::object()},
          {"terminationMessagePath", "/dev/termination-log"},
          {"terminationMessagePolicy", "File"}};
}

json defaulted_template_spec(const json& containers) {
  return {{"containers", containers},          {"dnsPolicy", "ClusterFirst"},
          {"restartPolicy", "Always"},         {"schedulerName", "default-scheduler"},
          {"securityContext", json::object()}, {"terminationGracePeriodSeconds", 30}};
}

json service_json(const std::string& name, const std::string& type, const json& ports) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"type", type}, {"ports", ports}, {"selector", {{"app", name}}}}}};
}

}  // namespace

TEST_CASE("imagePullPolicy follows the image tag", "[defaults]") {
  struct Row {
    std::string image;
    std::string policy;
  };
  auto row = GENERATE(values<Row>({
      {"nginx", "Always"},
      {"nginx:latest", "Always"},
      {"nginx:1.25", "IfNotPresent"},
      {"registry:5000/app", "Always"},
      {"registry:5000/app:v2", "IfNotPresent"},
      {"registry:5000/team/app:latest", "Always"},
      {"nginx@sha256:0e072dddd1f7f8fc8909a2ca6f65e76c5f0d2fcfb8be47935ae3457e8bbceb20",
       "IfNotPresent"},
      {"nginx:latest@sha256:0e072dddd1f7f8fc8909a2ca6f65e76c5f0d2fcfb8be47935ae3457e8bbceb20",
       "Always"},
      {"docker.io/library/busybox", "Always"},
      {"Nginx", "IfNotPresent"},  // not a valid reference: no tag is found
  }));
  CAPTURE(row.image);
  CHECK(default_image_pull_policy(row.image) == row.policy);

  json pod = {{"metadata", {{"name", "p"}, {"namespace", "default"}}},
              {"spec", {{"containers", json::array({kubectl_container(row.image)})}}}};
  apply_defaults(kPods, pod, create_with_suffix());
  CHECK(pod["spec"]["containers"][0]["imagePullPolicy"] == row.policy);
}

TEST_CASE("a pod from kubectl run gets the v1.32 defaults", "[defaults]") {
  // The admission plugins' effects (service account, priority, tolerations) are theirs:
  // admission_builtin_test.cpp.
  json pod = json::parse(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"labels":{"run":"nginx"},"name":"nginx","namespace":"default"},
    "spec":{"containers":[{"image":"nginx","name":"nginx","resources":{}}],
            "dnsPolicy":"ClusterFirst","restartPolicy":"Always"},
    "status":{}})");
  apply_defaults(kPods, pod, create_with_suffix());

  json expected_spec = json::parse(R"({
    "containers":[{"image":"nginx","imagePullPolicy":"Always","name":"nginx","resources":{},
      "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
    "dnsPolicy":"ClusterFirst","enableServiceLinks":true,"restartPolicy":"Always",
    "schedulerName":"default-scheduler","securityContext":{},
    "terminationGracePeriodSeconds":30})");
  CHECK(pod["spec"] == expected_spec);
  CHECK(pod["status"] == json({{"phase", "Pending"}, {"qosClass", "BestEffort"}}));
  CHECK(pod["metadata"] ==
        json({{"labels", {{"run", "nginx"}}}, {"name", "nginx"}, {"namespace", "default"}}));

  SECTION("an update keeps the status it is given") {
    json p3 = json::parse(R"({"metadata":{"name":"p","namespace":"ns"},
      "spec":{"containers":[{"name":"c","image":"busybox"}]},"status":{"phase":"Running"}})");
    apply_defaults(kPods, p3, phase(DefaultingPhase::Update));
    CHECK(p3["status"] == json({{"phase", "Running"}}));
    CHECK_FALSE(p3["spec"].contains("serviceAccountName"));
    CHECK_FALSE(p3["spec"].contains("tolerations"));
  }
}

TEST_CASE("container, probe, volume and env defaults", "[defaults]") {
  json pod = json::parse(R"({"metadata":{"name":"p","namespace":"ns"},"spec":{
    "hostNetwork":true,
    "volumes":[{"name":"scratch"},{"name":"cfg","configMap":{"name":"c"}},
               {"name":"sec","secret":{"secretName":"s"}},{"name":"h","hostPath":{"path":"/x"}}],
    "initContainers":[{"name":"init","image":"busybox"}],
    "containers":[{"name":"c","image":"app:1",
      "ports":[{"containerPort":8080}],
      "env":[{"name":"NODE","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}}],
      "livenessProbe":{"httpGet":{"port":8080}},
      "readinessProbe":{"tcpSocket":{"port":8080},"periodSeconds":5},
      "resources":{"limits":{"cpu":"500m","memory":"128Mi"}}}]}})");
  apply_defaults(kPods, pod, create_with_suffix());
  const json& spec = pod["spec"];
  CHECK(spec["volumes"][0] == json::parse(R"({"name":"scratch","emptyDir":{}})"));
  CHECK(spec["volumes"][1]["configMap"]["defaultMode"] == 420);
  CHECK(spec["volumes"][2]["secret"]["defaultMode"] == 420);
  CHECK(spec["volumes"][3]["hostPath"] == json::parse(R"({"path":"/x","type":""})"));
  const json& c = spec["containers"][0];
  CHECK(c["ports"][0] == json::parse(R"({"containerPort":8080,"hostPort":8080,"protocol":"TCP"})"));
  CHECK(c["env"][0]["valueFrom"]["fieldRef"] ==
        json::parse(R"({"apiVersion":"v1","fieldPath":"spec.nodeName"})"));
  CHECK(c["livenessProbe"] == json::parse(R"({"failureThreshold":3,
    "httpGet":{"path":"/","port":8080,"scheme":"HTTP"},
    "periodSeconds":10,"successThreshold":1,"timeoutSeconds":1})"));
  CHECK(c["readinessProbe"]["periodSeconds"] == 5);
  CHECK(c["readinessProbe"]["timeoutSeconds"] == 1);
  CHECK(c["resources"]["requests"] == json::parse(R"({"cpu":"500m","memory":"128Mi"})"));
  CHECK(spec["initContainers"][0]["imagePullPolicy"] == "Always");
  // Init containers count for QoS: the one without limits makes the pod Burstable.
  CHECK(pod["status"]["qosClass"] == "Burstable");
}

TEST_CASE("QoS class of a pod", "[defaults]") {
  struct Row {
    const char* name;
    const char* containers;
    const char* qos;
  };
  auto row = GENERATE(values<Row>({
      {"no resources", R"([{"name":"a"}])", "BestEffort"},
      {"empty resources", R"([{"name":"a","resources":{}}])", "BestEffort"},
      {"zero requests", R"([{"name":"a","resources":{"requests":{"cpu":"0"}}}])", "BestEffort"},
      {"requests only", R"([{"name":"a","resources":{"requests":{"cpu":"100m"}}}])", "Burstable"},
      {"limits equal requests",
       R"([{"name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"},
                                     "requests":{"cpu":"1000m","memory":"1024Mi"}}}])",
       "Guaranteed"},
      {"limits only (requests defaulted)",
       R"([{"name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}])", "Guaranteed"},
      {"cpu limit only", R"([{"name":"a","resources":{"limits":{"cpu":"1"}}}])", "Burstable"},
      {"requests below limits",
       R"([{"name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"},
                                     "requests":{"cpu":"500m","memory":"1Gi"}}}])",
       "Burstable"},
      {"one guaranteed, one best effort",
       R"([{"name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"}}},{"name":"b"}])",
       "Burstable"},
      {"only extended resources", R"([{"name":"a","resources":{"limits":{"nvidia.com/gpu":"1"}}}])",
       "BestEffort"},
  }));
  CAPTURE(row.name);
  json pod = {{"metadata", {{"name", "p"}, {"namespace", "ns"}}},
              {"spec", {{"containers", json::parse(row.containers)}}}};
  for (auto& c : pod["spec"]["containers"]) {
    c["image"] = "busybox";
  }
  apply_defaults(kPods, pod, create_with_suffix());
  CHECK(pod["status"]["qosClass"] == row.qos);
  CHECK(pod_qos_class(pod) == row.qos);
}

TEST_CASE("init containers count for the QoS class", "[defaults]") {
  // pod_qos_class sees the object after defaulting, when requests were copied from limits.
  json pod = json::parse(R"({"spec":{
    "initContainers":[{"name":"i","resources":{"limits":{"cpu":"1","memory":"1Gi"},
                                               "requests":{"cpu":"1","memory":"1Gi"}}}],
    "containers":[{"name":"a","resources":{"limits":{"cpu":"2","memory":"1Gi"},
                                           "requests":{"cpu":"2","memory":"1Gi"}}}]}})");
  CHECK(pod_qos_class(pod) == "Guaranteed");
  pod["spec"]["initContainers"][0]["resources"] = json::object();
  CHECK(pod_qos_class(pod) == "Burstable");
}

TEST_CASE("workload kinds get their apps/v1 and batch/v1 defaults", "[defaults]") {
  SECTION("Deployment from kubectl create deployment") {
    json d = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"labels":{"app":"web"},"name":"web","namespace":"default"},
      "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},"strategy":{},
        "template":{"metadata":{"labels":{"app":"web"}},
          "spec":{"containers":[{"image":"nginx","name":"nginx","resources":{}}]}}},
      "status":{}})");
    apply_defaults(kDeployments, d);
    json expected = {{"progressDeadlineSeconds", 600},
                     {"replicas", 1},
                     {"revisionHistoryLimit", 10},
                     {"selector", {{"matchLabels", {{"app", "web"}}}}},
                     {"strategy",
                      {{"rollingUpdate", {{"maxSurge", "25%"}, {"maxUnavailable", "25%"}}},
                       {"type", "RollingUpdate"}}},
                     {"template",
                      {{"metadata", {{"creationTimestamp", nullptr}, {"labels", {{"app", "web"}}}}},
                       {"spec", defaulted_template_spec(
                                    json::array({defaulted_container("nginx", "Always")}))}}}};
    CHECK(d["spec"] == expected);
    CHECK(d["status"] == json::object());
  }
  SECTION("Deployment with Recreate keeps no rollingUpdate") {
    json d = json::parse(R"({"metadata":{"name":"w"},"spec":{"strategy":{"type":"Recreate"},
      "template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.25"}]}}}})");
    apply_defaults(kDeployments, d);
    CHECK(d["spec"]["strategy"] == json({{"type", "Recreate"}}));
    CHECK(d["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent");
  }
  SECTION("StatefulSet") {
    json s = json::parse(R"({"metadata":{"name":"db"},"spec":{"serviceName":"db",
      "selector":{"matchLabels":{"app":"db"}},
      "template":{"metadata":{"labels":{"app":"db"}},
                  "spec":{"containers":[{"name":"nginx","image":"nginx"}]}},
      "volumeClaimTemplates":[{"metadata":{"name":"data"},
        "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}})");
    apply_defaults(kStatefulSets, s);
    const json& spec = s["spec"];
    CHECK(spec["replicas"] == 1);
    CHECK(spec["podManagementPolicy"] == "OrderedReady");
    CHECK(spec["revisionHistoryLimit"] == 10);
    CHECK(spec["updateStrategy"] ==
          json::parse(R"({"type":"RollingUpdate","rollingUpdate":{"partition":0}})"));
    CHECK(spec["persistentVolumeClaimRetentionPolicy"] ==
          json::parse(R"({"whenDeleted":"Retain","whenScaled":"Retain"})"));
    CHECK(spec["volumeClaimTemplates"][0]["spec"]["volumeMode"] == "Filesystem");
    CHECK(spec["volumeClaimTemplates"][0]["status"] == json({{"phase", "Pending"}}));
    CHECK_FALSE(spec.contains("minReadySeconds"));
  }
  SECTION("StatefulSet with OnDelete gets no rollingUpdate") {
    json s = json::parse(R"({"metadata":{"name":"db"},"spec":{"updateStrategy":{"type":"OnDelete"},
      "template":{"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}})");
    apply_defaults(kStatefulSets, s);
    CHECK(s["spec"]["updateStrategy"] == json({{"type", "OnDelete"}}));
  }
  SECTION("DaemonSet") {
    json ds = json::parse(R"({"metadata":{"name":"agent"},"spec":{
      "selector":{"matchLabels":{"app":"agent"}},
      "template":{"metadata":{"labels":{"app":"agent"}},
                  "spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}})");
    apply_defaults(kDaemonSets, ds);
    CHECK(ds["spec"]["updateStrategy"] ==
          json::parse(
              R"({"type":"RollingUpdate","rollingUpdate":{"maxSurge":0,"maxUnavailable":1}})"));
    CHECK(ds["spec"]["revisionHistoryLimit"] == 10);
  }
  SECTION("ReplicaSet and ReplicationController") {
    json rs =
        json::parse(R"({"metadata":{"name":"r"},"spec":{"template":{"spec":{"containers":[]}}}})");
    apply_defaults(kReplicaSets, rs);
    CHECK(rs["spec"]["replicas"] == 1);
    json rc = json::parse(R"({"metadata":{"name":"r"},"spec":{
      "template":{"metadata":{"labels":{"app":"r"}},"spec":{"containers":[]}}}})");
    apply_defaults(kRcs, rc);
    CHECK(rc["spec"]["replicas"] == 1);
    CHECK(rc["spec"]["selector"] == json({{"app", "r"}}));
    CHECK(rc["metadata"]["labels"] == json({{"app", "r"}}));
  }
  SECTION("Job from kubectl create job, with the generated selector and labels") {
    json job = json::parse(R"({"apiVersion":"batch/v1","kind":"Job",
      "metadata":{"name":"pi","namespace":"default","uid":"0b2f8a57-1111-4c6a-9d4e-123456789abc"},
      "spec":{"template":{"metadata":{},"spec":{"containers":[{"image":"perl","name":"pi",
        "resources":{}}],"restartPolicy":"Never"}}},"status":{}})");
    apply_defaults(kJobs, job);
    const std::string uid = "0b2f8a57-1111-4c6a-9d4e-123456789abc";
    json labels = {{"batch.kubernetes.io/controller-uid", uid},
                   {"batch.kubernetes.io/job-name", "pi"},
                   {"controller-uid", uid},
                   {"job-name", "pi"}};
    const json& spec = job["spec"];
    CHECK(spec["backoffLimit"] == 6);
    CHECK(spec["completionMode"] == "NonIndexed");
    CHECK(spec["completions"] == 1);
    CHECK(spec["parallelism"] == 1);
    CHECK(spec["manualSelector"] == false);
    CHECK(spec["podReplacementPolicy"] == "TerminatingOrFailed");
    CHECK(spec["suspend"] == false);
    CHECK(spec["selector"] ==
          json({{"matchLabels", {{"batch.kubernetes.io/controller-uid", uid}}}}));
    CHECK(spec["template"]["metadata"] ==
          json({{"creationTimestamp", nullptr}, {"labels", labels}}));
    CHECK(spec["template"]["spec"]["restartPolicy"] == "Never");
    CHECK(job["metadata"]["labels"] == labels);
    CHECK(job["status"] == json::object());
  }
  SECTION("Job parallelism without completions, and podFailurePolicy") {
    json job = json::parse(R"({"metadata":{"name":"j","uid":"u"},"spec":{"parallelism":3,
      "podFailurePolicy":{"rules":[{"action":"Ignore",
                                    "onPodConditions":[{"type":"DisruptionTarget"}]}]},
      "template":{"spec":{"containers":[],"restartPolicy":"Never"}}}})");
    apply_defaults(kJobs, job);
    CHECK_FALSE(job["spec"].contains("completions"));
    CHECK(job["spec"]["podReplacementPolicy"] == "Failed");
    CHECK(job["spec"]["podFailurePolicy"]["rules"][0]["onPodConditions"][0]["status"] == "True");
  }
  SECTION("CronJob") {
    json cj = json::parse(R"({"metadata":{"name":"c"},"spec":{"schedule":"*/1 * * * *",
      "jobTemplate":{"metadata":{"name":"c"},"spec":{"template":{"spec":{
        "containers":[{"name":"c","image":"busybox"}],"restartPolicy":"OnFailure"}}}}}})");
    apply_defaults(kCronJobs, cj);
    const json& spec = cj["spec"];
    CHECK(spec["concurrencyPolicy"] == "Allow");
    CHECK(spec["suspend"] == false);
    CHECK(spec["successfulJobsHistoryLimit"] == 3);
    CHECK(spec["failedJobsHistoryLimit"] == 1);
    CHECK(spec["jobTemplate"]["metadata"] == json({{"creationTimestamp", nullptr}, {"name", "c"}}));
    CHECK_FALSE(spec["jobTemplate"]["spec"].contains("backoffLimit"));
    CHECK(spec["jobTemplate"]["spec"]["template"]["spec"]["schedulerName"] == "default-scheduler");
  }
}

TEST_CASE("Service defaults", "[defaults]") {
  SECTION("kubectl create service clusterip") {
    json svc = json::parse(R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"labels":{"app":"web"},"name":"web","namespace":"default"},
      "spec":{"ports":[{"name":"80-8080","port":80,"protocol":"TCP","targetPort":8080}],
              "selector":{"app":"web"},"type":"ClusterIP"},"status":{"loadBalancer":{}}})");
    apply_defaults(kServices, svc);
    json expected = json::parse(R"({
      "internalTrafficPolicy":"Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",
      "ports":[{"name":"80-8080","port":80,"protocol":"TCP","targetPort":8080}],
      "selector":{"app":"web"},"sessionAffinity":"None","type":"ClusterIP"})");
    CHECK(svc["spec"] == expected);
    CHECK(svc["status"] == json::parse(R"({"loadBalancer":{}})"));
  }
  SECTION("targetPort defaults to port; protocol to TCP") {
    struct Row {
      const char* port;
      json target;
    };
    auto row = GENERATE(values<Row>({
        {R"({"port":80})", 80},
        {R"({"port":80,"targetPort":0})", 80},
        {R"({"port":80,"targetPort":""})", 80},
        {R"({"port":80,"targetPort":"http"})", "http"},
        {R"({"port":80,"targetPort":9376})", 9376},
    }));
    CAPTURE(row.port);
    json svc = {{"metadata", {{"name", "s"}}},
                {"spec", {{"ports", json::array({json::parse(row.port)})}}}};
    apply_defaults(kServices, svc);
    CHECK(svc["spec"]["ports"][0]["targetPort"] == row.target);
    CHECK(svc["spec"]["ports"][0]["protocol"] == "TCP");
    CHECK(svc["spec"]["type"] == "ClusterIP");
  }
  SECTION("NodePort and LoadBalancer") {
    json np = service_json("n", "NodePort", json::parse(R"([{"port":80}])"));
    apply_defaults(kServices, np);
    CHECK(np["spec"]["externalTrafficPolicy"] == "Cluster");
    CHECK_FALSE(np["spec"].contains("allocateLoadBalancerNodePorts"));
    json lb = service_json("l", "LoadBalancer", json::parse(R"([{"port":80}])"));
    apply_defaults(kServices, lb);
    CHECK(lb["spec"]["externalTrafficPolicy"] == "Cluster");
    CHECK(lb["spec"]["allocateLoadBalancerNodePorts"] == true);
    CHECK(lb["spec"]["internalTrafficPolicy"] == "Cluster");
  }
  SECTION("ExternalName gets neither traffic policies nor IP families") {
    json svc = json::parse(
        R"({"metadata":{"name":"e"},"spec":{"type":"ExternalName","externalName":"example.com"}})");
    apply_defaults(kServices, svc);
    CHECK(svc["spec"] == json::parse(R"({"type":"ExternalName","externalName":"example.com",
                                          "sessionAffinity":"None"})"));
  }
  SECTION("ClientIP affinity gets the 10800s timeout; headless without selector") {
    json svc = json::parse(R"({"metadata":{"name":"h"},"spec":{"clusterIP":"None",
      "sessionAffinity":"ClientIP","ports":[{"port":5432}]}})");
    apply_defaults(kServices, svc);
    CHECK(svc["spec"]["sessionAffinityConfig"] ==
          json::parse(R"({"clientIP":{"timeoutSeconds":10800}})"));
    CHECK(svc["spec"]["ipFamilyPolicy"] == "RequireDualStack");
    CHECK(svc["spec"]["ipFamilies"] == json::array({"IPv4"}));
  }
}

TEST_CASE("Secret stringData is folded into data", "[defaults]") {
  json secret = json::parse(R"({"metadata":{"name":"s"},
    "data":{"user":"b2xk","keep":"a2VlcA=="},
    "stringData":{"user":"admin","password":"s3cr3t!","empty":""}})");
  apply_defaults(kSecrets, secret);
  CHECK(secret == json::parse(R"({"metadata":{"name":"s"},"type":"Opaque",
    "data":{"user":"YWRtaW4=","keep":"a2VlcA==","password":"czNjcjN0IQ==","empty":""}})"));

  json typed = json::parse(R"({"metadata":{"name":"t"},"type":"kubernetes.io/tls",
    "stringData":{"a":"ab"}})");
  apply_defaults(kSecrets, typed, phase(DefaultingPhase::Decode));
  CHECK(typed["type"] == "kubernetes.io/tls");
  CHECK(typed["data"] == json({{"a", "YWI="}}));
  CHECK_FALSE(typed.contains("stringData"));
}

TEST_CASE("Namespace, PVC, RBAC and kinds without defaults", "[defaults]") {
  SECTION("Namespace create") {
    json ns = json::parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"},
      "spec":{},"status":{}})");
    apply_defaults(kNamespaces, ns);
    CHECK(ns["metadata"]["labels"] == json({{"kubernetes.io/metadata.name", "team-a"}}));
    CHECK(ns["spec"] == json::parse(R"({"finalizers":["kubernetes"]})"));
    CHECK(ns["status"] == json::parse(R"({"phase":"Active"})"));
  }
  SECTION("Namespace label is forced to the name") {
    json ns = json::parse(
        R"({"metadata":{"name":"a","labels":{"kubernetes.io/metadata.name":"b","x":"y"}}})");
    apply_defaults(kNamespaces, ns, phase(DefaultingPhase::Update));
    CHECK(ns["metadata"]["labels"] == json({{"kubernetes.io/metadata.name", "a"}, {"x", "y"}}));
    CHECK_FALSE(ns.contains("spec"));
  }
  SECTION("PersistentVolumeClaim") {
    json pvc = json::parse(R"({"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],
      "resources":{"requests":{"storage":"1Gi"}}}})");
    apply_defaults(kPvcs, pvc);
    CHECK(pvc["spec"]["volumeMode"] == "Filesystem");
    CHECK(pvc["status"] == json({{"phase", "Pending"}}));
    // The protection finalizer is StorageObjectInUseProtection's (admission), not a default.
    CHECK_FALSE(pvc["metadata"].contains("finalizers"));
  }
  SECTION("RoleBinding subjects") {
    json rb = json::parse(R"({"metadata":{"name":"rb"},
      "roleRef":{"kind":"Role","name":"r"},
      "subjects":[{"kind":"User","name":"alice"},{"kind":"Group","name":"devs"},
                  {"kind":"ServiceAccount","name":"default","namespace":"ns"}]})");
    apply_defaults(kRoleBindings, rb);
    CHECK(rb["roleRef"]["apiGroup"] == "rbac.authorization.k8s.io");
    CHECK(rb["subjects"][0]["apiGroup"] == "rbac.authorization.k8s.io");
    CHECK(rb["subjects"][1]["apiGroup"] == "rbac.authorization.k8s.io");
    CHECK(rb["subjects"][2]["apiGroup"] == "");
  }
  SECTION("ConfigMap is unchanged") {
    json cm = json::parse(R"({"metadata":{"name":"c"},"data":{"a":"b"}})");
    json before = cm;
    apply_defaults(kConfigMaps, cm);
    CHECK(cm == before);
  }
  SECTION("wrong JSON types are left for validation") {
    json pod = json::parse(R"({"metadata":{"name":"p"},"spec":{"containers":"nope","volumes":7}})");
    apply_defaults(kPods, pod, create_with_suffix());
    CHECK(pod["spec"]["containers"] == "nope");
    CHECK(pod["spec"]["volumes"] == 7);
  }
}

// ---- ServiceIpAllocator ----

TEST_CASE("cluster IPs are unique and come from the upper band first", "[defaults]") {
  ServiceIpAllocator alloc(ServiceIpOptions{.seed = 42});
  std::set<std::string> seen;
  for (int i = 0; i < 500; ++i) {
    auto ip = alloc.allocate_next_ip();
    REQUIRE(ip);
    CHECK(seen.insert(*ip).second);
    // The lower band 10.96.0.1 - 10.96.1.0 stays free for requested addresses.
    CHECK(ip->rfind("10.96.0.", 0) != 0);
  }
  CHECK(alloc.allocated_ip_count() == 500);
}

TEST_CASE("small ranges fall back to the lower band and report full", "[defaults]") {
  ServiceIpAllocator alloc(ServiceIpOptions{.service_cidr = "10.0.0.0/28", .seed = 7});
  std::set<std::string> seen;
  for (int i = 0; i < 14; ++i) {  // 16 addresses minus network and broadcast
    auto ip = alloc.allocate_next_ip();
    REQUIRE(ip);
    seen.insert(*ip);
  }
  CHECK(seen.size() == 14);
  CHECK_FALSE(seen.count("10.0.0.0"));
  CHECK_FALSE(seen.count("10.0.0.15"));
  CHECK_FALSE(alloc.allocate_next_ip());
}

TEST_CASE("a service gets a cluster IP and requested IPs are checked", "[defaults]") {
  ServiceIpAllocator alloc(ServiceIpOptions{.seed = 1});
  json first = service_json("a", "ClusterIP", json::parse(R"([{"port":80}])"));
  first["spec"]["clusterIP"] = "10.96.0.10";
  REQUIRE(alloc.allocate_service(first).empty());
  CHECK(first["spec"]["clusterIPs"] == json::array({"10.96.0.10"}));

  SECTION("taken") {
    json second = service_json("b", "ClusterIP", json::parse(R"([{"port":80}])"));
    second["spec"]["clusterIP"] = "10.96.0.10";
    second["spec"]["clusterIPs"] = json::array({"10.96.0.10"});
    auto errors = alloc.allocate_service(second);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].reason == "FieldValueInvalid");
    CHECK(errors[0].field == "spec.clusterIPs");
    CHECK(render_field_errors(errors) ==
          "spec.clusterIPs: Invalid value: []string{\"10.96.0.10\"}: failed to allocate IP "
          "10.96.0.10: provided IP is already allocated");
  }
  SECTION("out of range") {
    json second = service_json("b", "ClusterIP", json::parse(R"([{"port":80}])"));
    second["spec"]["clusterIP"] = "192.168.1.1";
    auto errors = alloc.allocate_service(second);
    REQUIRE(errors.size() == 1);
    CHECK(render_field_errors(errors) ==
          "spec.clusterIPs: Invalid value: []string{\"192.168.1.1\"}: failed to allocate IP "
          "192.168.1.1: the provided IP (192.168.1.1) is not in the valid range. The range of "
          "valid IPs is 10.96.0.0/12");
  }
  SECTION("release and reuse") {
    alloc.release_service(first);
    CHECK_FALSE(alloc.ip_allocated("10.96.0.10"));
    json again = service_json("c", "ClusterIP", json::parse(R"([{"port":80}])"));
    again["spec"]["clusterIP"] = "10.96.0.10";
    CHECK(alloc.allocate_service(again).empty());
  }
  SECTION("dynamic, headless and ExternalName") {
    json dynamic = service_json("d", "ClusterIP", json::parse(R"([{"port":80}])"));
    REQUIRE(alloc.allocate_service(dynamic).empty());
    CHECK(dynamic["spec"]["clusterIPs"] == json::array({dynamic["spec"]["clusterIP"]}));
    CHECK(alloc.ip_allocated(dynamic["spec"]["clusterIP"].get<std::string>()));
    json headless = service_json("h", "ClusterIP", json::parse(R"([{"port":80}])"));
    headless["spec"]["clusterIP"] = "None";
    REQUIRE(alloc.allocate_service(headless).empty());
    CHECK(headless["spec"]["clusterIPs"] == json::array({"None"}));
    json external = json::parse(R"({"spec":{"type":"ExternalName","externalName":"x.example"}})");
    REQUIRE(alloc.allocate_service(external).empty());
    CHECK_FALSE(external["spec"].contains("clusterIP"));
    CHECK(alloc.allocated_ip_count() == 2);
  }
}

TEST_CASE("node ports for NodePort and LoadBalancer services", "[defaults]") {
  ServiceIpAllocator alloc(ServiceIpOptions{.seed = 3});
  json web = service_json("web", "NodePort",
                          json::parse(R"([{"port":80,"nodePort":30080},{"port":443}])"));
  REQUIRE(alloc.allocate_service(web).empty());
  CHECK(web["spec"]["ports"][0]["nodePort"] == 30080);
  int dynamic = web["spec"]["ports"][1]["nodePort"].get<int>();
  CHECK(dynamic >= 30086);  // upper band first
  CHECK(dynamic <= 32767);
  CHECK(alloc.node_port_allocated(30080));

  SECTION("taken port: exact error, nothing kept") {
    size_t ips_before = alloc.allocated_ip_count();
    json other =
        service_json("other", "NodePort", json::parse(R"([{"port":80,"nodePort":30080}])"));
    auto errors = alloc.allocate_service(other);
    CHECK(render_field_errors(errors) ==
          "spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated");
    CHECK(alloc.allocated_ip_count() == ips_before);
  }
  SECTION("out of range") {
    json other = service_json("other", "NodePort",
                              json::parse(R"([{"port":80},{"port":81,"nodePort":8080}])"));
    size_t ports_before = alloc.allocated_node_port_count();
    auto errors = alloc.allocate_service(other);
    CHECK(render_field_errors(errors) ==
          "spec.ports[1].nodePort: Invalid value: 8080: provided port is not in the valid range. "
          "The range of valid ports is 30000-32767");
    CHECK(alloc.allocated_node_port_count() == ports_before);
  }
  SECTION("TCP and UDP on one port number share the node port") {
    json dns =
        service_json("dns", "NodePort",
                     json::parse(R"([{"port":53,"protocol":"UDP"},{"port":53,"protocol":"TCP"}])"));
    REQUIRE(alloc.allocate_service(dns).empty());
    CHECK(dns["spec"]["ports"][0]["nodePort"] == dns["spec"]["ports"][1]["nodePort"]);
  }
  SECTION("LoadBalancer without node ports, and with a health check port") {
    json lb = service_json("lb", "LoadBalancer", json::parse(R"([{"port":80}])"));
    lb["spec"]["allocateLoadBalancerNodePorts"] = false;
    REQUIRE(alloc.allocate_service(lb).empty());
    CHECK_FALSE(lb["spec"]["ports"][0].contains("nodePort"));
    json local = service_json("local", "LoadBalancer", json::parse(R"([{"port":80}])"));
    local["spec"]["externalTrafficPolicy"] = "Local";
    REQUIRE(alloc.allocate_service(local).empty());
    CHECK(local["spec"]["healthCheckNodePort"].is_number_integer());
    CHECK(local["spec"]["ports"][0]["nodePort"].is_number_integer());
  }
  SECTION("delete releases every port") {
    alloc.release_service(web);
    CHECK_FALSE(alloc.node_port_allocated(30080));
    CHECK_FALSE(alloc.node_port_allocated(dynamic));
    CHECK(alloc.allocated_node_port_count() == 0);
    CHECK(alloc.allocated_ip_count() == 0);
  }
  SECTION("update keeps ports by name and releases what a type change drops") {
    json updated = web;
    updated["spec"]["ports"][1].erase("nodePort");
    REQUIRE(alloc.update_service(web, updated).empty());
    CHECK(updated["spec"]["ports"][1]["nodePort"] == dynamic);
    CHECK(updated["spec"]["clusterIP"] == web["spec"]["clusterIP"]);

    json to_cluster_ip = updated;
    to_cluster_ip["spec"]["type"] = "ClusterIP";
    for (auto& p : to_cluster_ip["spec"]["ports"]) {
      p.erase("nodePort");
    }
    REQUIRE(alloc.update_service(updated, to_cluster_ip).empty());
    CHECK(alloc.allocated_node_port_count() == 0);
    CHECK(alloc.ip_allocated(to_cluster_ip["spec"]["clusterIP"].get<std::string>()));
  }
}

TEST_CASE("the allocator is rebuilt from stored services", "[defaults]") {
  std::vector<json> stored = {
      json::parse(R"({"metadata":{"name":"kubernetes"},"spec":{"type":"ClusterIP",
        "clusterIP":"10.96.0.1","clusterIPs":["10.96.0.1"],"ports":[{"port":443}]}})"),
      json::parse(R"({"metadata":{"name":"web"},"spec":{"type":"NodePort",
        "clusterIP":"10.100.20.30","clusterIPs":["10.100.20.30"],
        "ports":[{"port":80,"nodePort":30080}]}})"),
      json::parse(
          R"({"metadata":{"name":"db"},"spec":{"clusterIP":"None","clusterIPs":["None"]}})"),
  };
  ServiceIpAllocator alloc(ServiceIpOptions{.seed = 9});
  REQUIRE(alloc.allocate_ip("10.96.0.99").empty());  // forgotten by the rebuild
  alloc.rebuild(stored);
  CHECK(alloc.ip_allocated("10.96.0.1"));
  CHECK(alloc.ip_allocated("10.100.20.30"));
  CHECK_FALSE(alloc.ip_allocated("10.96.0.99"));
  CHECK(alloc.node_port_allocated(30080));
  CHECK(alloc.allocated_ip_count() == 2);
  CHECK(alloc.allocate_ip("10.96.0.1") == "provided IP is already allocated");
  CHECK(alloc.allocate_node_port(30080) == "provided port is already allocated");
}

TEST_CASE("allocation is safe from several threads", "[defaults]") {
  ServiceIpAllocator alloc(ServiceIpOptions{.seed = 5});
  std::vector<std::vector<std::string>> results(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        json svc = service_json("s", "NodePort", json::parse(R"([{"port":80}])"));
        if (alloc.allocate_service(svc).empty()) {
          results[t].push_back(svc["spec"]["clusterIP"].get<std::string>() + "/" +
                               std::to_string(svc["spec"]["ports"][0]["nodePort"].get<int>()));
        }
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  std::set<std::string> ips;
  std::set<std::string> ports;
  size_t total = 0;
  for (const auto& r : results) {
    for (const auto& entry : r) {
      ++total;
      ips.insert(entry.substr(0, entry.find('/')));
      ports.insert(entry.substr(entry.find('/') + 1));
    }
  }
  CHECK(total == 800);
  CHECK(ips.size() == 800);
  CHECK(ports.size() == 800);
  CHECK(alloc.allocated_node_port_count() == 800);
}
