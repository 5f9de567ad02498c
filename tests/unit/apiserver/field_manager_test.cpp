#include <catch2/catch.hpp>

#include "endpoints/patch/field_manager.h"

using namespace apiserver::endpoints::patch;
using nlohmann::json;

namespace {

const char* kT0 = "2024-05-01T10:00:00Z";
const char* kT1 = "2024-05-01T10:05:00Z";
const char* kT2 = "2024-05-01T10:10:00Z";

ObjectType kind(const std::string& group, const std::string& version, const std::string& name) {
  auto type = ObjectType::builtin(group, version, name);
  REQUIRE(type.has_value());
  return *type;
}

Writer writer(const std::string& manager, const std::string& api_version, const char* now,
              const std::string& subresource = "") {
  return Writer{manager, api_version, subresource, now, {}};
}

// The managedFields entry of (manager, operation); fails the test when absent.
json entry(const json& object, const std::string& manager, const std::string& operation) {
  for (const json& e : object["metadata"]["managedFields"]) {
    if (e["manager"] == manager && e["operation"] == operation) {
      return e;
    }
  }
  FAIL("no managedFields entry for " << manager << " " << operation << " in "
                                     << object["metadata"].dump());
  return {};
}

bool has_entry(const json& object, const std::string& manager, const std::string& operation) {
  const json& meta = object["metadata"];
  if (!meta.contains("managedFields")) {
    return false;
  }
  for (const json& e : meta["managedFields"]) {
    if (e["manager"] == manager && e["operation"] == operation) {
      return true;
    }
  }
  return false;
}

json config_map(const json& data) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", "cm"}, {"namespace", "default"}}},
          {"data", data}};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// fieldsV1

TEST_CASE("fieldsV1 of real objects round-trips through the set type", "[ssa][fieldsv1]") {
  auto text = GENERATE(
      // kubectl create configmap
      R"({"f:data":{".":{},"f:key":{}}})",
      // kubectl create deployment
      R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},)"
      R"("f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{)"
      R"("f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},)"
      R"("f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{)"
      R"("k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},)"
      R"("f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},)"
      R"("f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},)"
      R"("f:terminationGracePeriodSeconds":{}}}}})",
      // kube-controller-manager on the deployment status
      R"({"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/revision":{}}},)"
      R"("f:status":{"f:availableReplicas":{},"f:conditions":{".":{},)"
      R"("k:{\"type\":\"Available\"}":{".":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},)"
      R"("f:observedGeneration":{},"f:replicas":{}}})",
      // a Service: map list keyed by two fields, finalizers as a set
      R"({"f:metadata":{"f:finalizers":{".":{},"v:\"service.kubernetes.io/load-balancer-cleanup\"":{}}},)"
      R"("f:spec":{"f:ports":{".":{},"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{},)"
      R"("f:protocol":{},"f:targetPort":{}}},"f:selector":{}}})",
      // indices and a deduced node
      R"({"f:spec":{"f:x":{"i:0":{},"i:1":{"f:y":{}}}}})");
  CAPTURE(text);
  json fields = json::parse(text);
  auto set = FieldSet::from_fields_v1(fields);
  REQUIRE(set);
  CHECK(set->to_fields_v1() == fields);
  CHECK_FALSE(set->empty());
}

TEST_CASE("fieldsV1 parsing rejects malformed keys with the reason", "[ssa][fieldsv1]") {
  struct Row {
    const char* text;
    const char* error;
  };
  auto row = GENERATE(values<Row>({
      {R"({"x:name":{}})", R"(unknown path element key "x:name")"},
      {R"({"name":{}})", R"(unknown path element key "name")"},
      {R"({"k:[1]":{}})", R"(invalid key in "k:[1]")"},
      {R"({"i:one":{}})", R"(invalid index in "i:one")"},
      {R"({"v:{":{}})", R"(invalid value in "v:{")"},
      {R"({"f:a":3})", "expected an object at .a"},
      {R"([])", "expected an object at the root"},
  }));
  CAPTURE(row.text);
  auto set = FieldSet::from_fields_v1(json::parse(row.text));
  REQUIRE_FALSE(set);
  CHECK(set.error() == row.error);
}

TEST_CASE("fieldsV1 keys are canonicalized: sorted compact JSON", "[ssa][fieldsv1]") {
  auto set = FieldSet::from_fields_v1(
      json::parse(R"({"k:{ \"protocol\": \"TCP\", \"port\": 80 }":{"f:port":{}}})"));
  REQUIRE(set);
  CHECK(set->to_fields_v1().dump() == R"({"k:{\"port\":80,\"protocol\":\"TCP\"}":{"f:port":{}}})");
}

TEST_CASE("field set algebra works level by level like fieldpath.Set", "[ssa][fieldsv1]") {
  auto parse = [](const char* text) { return *FieldSet::from_fields_v1(json::parse(text)); };
  FieldSet a = parse(R"({"f:data":{".":{},"f:a":{},"f:b":{}},"f:spec":{"f:x":{}}})");
  FieldSet b = parse(R"({"f:data":{"f:b":{},"f:c":{}},"f:spec":{}})");

  CHECK(
      a.union_with(b).to_fields_v1() ==
      json::parse(R"({"f:data":{".":{},"f:a":{},"f:b":{},"f:c":{}},"f:spec":{".":{},"f:x":{}}})"));
  CHECK(a.intersection(b).to_fields_v1() == json::parse(R"({"f:data":{"f:b":{}}})"));
  CHECK(a.difference(b).to_fields_v1() ==
        json::parse(R"({"f:data":{".":{},"f:a":{}},"f:spec":{"f:x":{}}})"));
  // b has spec as a member: recursive difference drops everything below it, difference does not.
  CHECK(a.recursive_difference(b).to_fields_v1() == json::parse(R"({"f:data":{".":{},"f:a":{}}})"));
  CHECK(a.difference(a).empty());
  CHECK(FieldSet().union_with(FieldSet()).empty());
  CHECK(a.has({"f:data"}));
  CHECK(a.has({"f:data", "f:a"}));
  CHECK_FALSE(a.has({"f:spec"}));

  std::vector<std::string> shown;
  for (const auto& path : a.paths()) {
    shown.push_back(display_path(path));
  }
  CHECK(shown == std::vector<std::string>{".data", ".data.a", ".data.b", ".spec.x"});
}

TEST_CASE("paths display like fieldpath.Path.String", "[ssa][fieldsv1]") {
  CHECK(display_path({"f:spec", "f:template", "f:spec", "f:containers", R"(k:{"name":"app"})",
                      "f:image"}) == R"(.spec.template.spec.containers[name="app"].image)");
  CHECK(display_path({"f:spec", "f:ports", R"(k:{"port":80,"protocol":"TCP"})"}) ==
        R"(.spec.ports[port=80,protocol="TCP"])");
  CHECK(display_path({"f:metadata", "f:finalizers", R"(v:"a\"b")"}) ==
        R"(.metadata.finalizers[="a\"b"])");
  CHECK(display_path({"f:x", "i:3"}) == ".x[3]");
}

// ---------------------------------------------------------------------------------------------
// Typed operations

TEST_CASE("an object's field set marks list items, map entries and empty structs as members",
          "[ssa][typed]") {
  auto pod = kind("", "v1", "Pod");
  json object = json::parse(R"({
    "metadata": {"labels": {"app": "x"}, "finalizers": ["f1"]},
    "spec": {"containers": [{"name": "app", "image": "nginx", "args": ["-v"],
                             "resources": {}}],
             "nodeSelector": {"disk": "ssd"}, "securityContext": {}, "hostname": null}})");
  FieldSet set = to_field_set(pod, object);
  CHECK(set.to_fields_v1() == json::parse(R"({
    "f:metadata": {"f:finalizers": {"v:\"f1\"": {}}, "f:labels": {"f:app": {}}},
    "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:args": {}, "f:image": {},
                                                        "f:name": {}, "f:resources": {}}},
               "f:hostname": {}, "f:nodeSelector": {}, "f:securityContext": {}}})"));
}

TEST_CASE("compare reports added nodes with '.', modified leaves and removed subtrees",
          "[ssa][typed]") {
  auto cm = kind("", "v1", "ConfigMap");
  Comparison c = compare(cm, config_map({{"a", "1"}, {"b", "2"}}),
                         config_map({{"a", "1"}, {"b", "3"}, {"c", "4"}}));
  CHECK(c.added.to_fields_v1() == json::parse(R"({"f:data":{"f:c":{}}})"));
  CHECK(c.modified.to_fields_v1() == json::parse(R"({"f:data":{"f:b":{}}})"));
  CHECK(c.removed.empty());

  json without_data = config_map({});
  without_data.erase("data");
  c = compare(cm, config_map({{"a", "1"}}), without_data);
  CHECK(c.removed.to_fields_v1() == json::parse(R"({"f:data":{".":{},"f:a":{}}})"));
  CHECK(c.added.empty());
}

TEST_CASE("merge follows list and map types", "[ssa][typed]") {
  auto deployment = kind("apps", "v1", "Deployment");
  auto service = kind("", "v1", "Service");
  SECTION("map lists merge items by key and keep live items") {
    json live = json::parse(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"app","image":"a:1","args":["x"]},{"name":"sidecar","image":"s:1"}]}}}})");
    json config = json::parse(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"app","image":"a:2","args":["y","z"]},{"name":"new","image":"n:1"}]}}}})");
    json merged = merge(deployment, live, config);
    CHECK(merged["spec"]["template"]["spec"]["containers"] == json::parse(R"([
      {"name":"app","image":"a:2","args":["y","z"]},{"name":"sidecar","image":"s:1"},
      {"name":"new","image":"n:1"}])"));
  }
  SECTION("atomic maps are replaced, granular maps merged") {
    json live = json::parse(R"({"metadata":{"labels":{"a":"1"}},"spec":{"selector":{"a":"1"}}})");
    json config = json::parse(R"({"metadata":{"labels":{"b":"2"}},"spec":{"selector":{"b":"2"}}})");
    json merged = merge(service, live, config);
    CHECK(merged["spec"]["selector"] == json{{"b", "2"}});
    CHECK(merged["metadata"]["labels"] == json({{"a", "1"}, {"b", "2"}}));
  }
  SECTION("set lists take the union") {
    json merged = merge(service, json::parse(R"({"metadata":{"finalizers":["a","b"]}})"),
                        json::parse(R"({"metadata":{"finalizers":["c","a"]}})"));
    CHECK(merged["metadata"]["finalizers"] == json({"a", "b", "c"}));
  }
}

TEST_CASE("zero objects have Go's non-pointer structs and non-omitempty nil lists",
          "[ssa][typed]") {
  json zero = zero_object(kind("apps", "v1", "Deployment"));
  CHECK(zero["metadata"] == json::parse(R"({"creationTimestamp": null})"));
  CHECK(zero["spec"]["selector"].is_null());
  CHECK(zero["spec"]["strategy"] == json::object());
  CHECK(zero["spec"]["template"]["spec"]["containers"].is_null());
  CHECK_FALSE(zero["spec"].contains("replicas"));
  CHECK(zero_object(kind("", "v1", "ConfigMap")) ==
        json::parse(R"({"metadata": {"creationTimestamp": null}})"));
}

// ---------------------------------------------------------------------------------------------
// Update bookkeeping

TEST_CASE("create records the creator's fields as kubectl shows them", "[ssa][update]") {
  auto deployment = kind("apps", "v1", "Deployment");
  json object = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"web","namespace":"default","labels":{"app":"web"},"uid":"u1",
                "resourceVersion":"5","generation":1,"creationTimestamp":"2024-05-01T10:00:00Z"},
    "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
      "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}},
      "template":{"metadata":{"labels":{"app":"web"}},
        "spec":{"containers":[{"name":"nginx","image":"nginx","ports":[{"containerPort":80,"protocol":"TCP"}]}]}}}})");
  json out =
      update_managed_fields(deployment, nullptr, object, writer("kubectl-create", "apps/v1", kT0));
  REQUIRE(out["metadata"]["managedFields"].size() == 1);
  json e = out["metadata"]["managedFields"][0];
  CHECK(e == json::parse(R"({"manager":"kubectl-create","operation":"Update","apiVersion":"apps/v1",
    "time":"2024-05-01T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{
    "f:metadata":{"f:labels":{".":{},"f:app":{}}},
    "f:spec":{"f:replicas":{},"f:selector":{},
      "f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},
      "f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},
        "f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:name":{},
          "f:ports":{".":{},"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},
            "f:containerPort":{},"f:protocol":{}}}}}}}}}})"));
  json expected = object;
  expected["metadata"].erase("managedFields");
  out["metadata"].erase("managedFields");
  CHECK(out == expected);
}

TEST_CASE("an update moves changed fields to the writer and drops emptied entries",
          "[ssa][update]") {
  auto cm = kind("", "v1", "ConfigMap");
  json created = update_managed_fields(cm, nullptr, config_map({{"a", "1"}, {"b", "2"}}),
                                       writer("creator", "v1", kT0));
  CHECK(entry(created, "creator", "Update")["fieldsV1"] ==
        json::parse(R"({"f:data":{".":{},"f:a":{},"f:b":{}}})"));

  SECTION("another manager changes one key") {
    json next = created;
    next["data"]["a"] = "changed";
    json out = update_managed_fields(cm, &created, next, writer("editor", "v1", kT1));
    CHECK(out["metadata"]["managedFields"] == json::parse(R"([
      {"manager":"creator","operation":"Update","apiVersion":"v1","time":"2024-05-01T10:00:00Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:b":{}}}},
      {"manager":"editor","operation":"Update","apiVersion":"v1","time":"2024-05-01T10:05:00Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}])"));

    SECTION("and then removes the rest") {
      json last = out;
      last.erase("data");
      json removed = update_managed_fields(cm, &out, last, writer("editor", "v1", kT2));
      CHECK_FALSE(removed["metadata"].contains("managedFields"));
    }
  }
  SECTION("a write that changes nothing keeps entries and times") {
    json same = update_managed_fields(cm, &created, created, writer("other", "v1", kT1));
    CHECK(same["metadata"]["managedFields"] == created["metadata"]["managedFields"]);
  }
  SECTION("the same manager with another apiVersion or subresource gets its own entry") {
    json next = created;
    next["data"]["c"] = "3";
    json out = update_managed_fields(cm, &created, next, writer("creator", "v1", kT1, "status"));
    CHECK(out["metadata"]["managedFields"].size() == 2);
    CHECK(out["metadata"]["managedFields"][1]["subresource"] == "status");
  }
  SECTION("the same manager again merges into its entry and bumps the time") {
    json next = created;
    next["data"]["c"] = "3";
    json out = update_managed_fields(cm, &created, next, writer("creator", "v1", kT1));
    REQUIRE(out["metadata"]["managedFields"].size() == 1);
    CHECK(out["metadata"]["managedFields"][0]["time"] == kT1);
    CHECK(out["metadata"]["managedFields"][0]["fieldsV1"] ==
          json::parse(R"({"f:data":{".":{},"f:a":{},"f:b":{},"f:c":{}}})"));
  }
}

TEST_CASE("managedFields sent by the client are honoured, reset, or ignored", "[ssa][update]") {
  auto cm = kind("", "v1", "ConfigMap");
  json created =
      update_managed_fields(cm, nullptr, config_map({{"a", "1"}}), writer("creator", "v1", kT0));
  json next = created;
  next["data"]["b"] = "2";
  SECTION("[] resets to the writer's own change only") {
    next["metadata"]["managedFields"] = json::array();
    json out = update_managed_fields(cm, &created, next, writer("w", "v1", kT1));
    CHECK(out["metadata"]["managedFields"] == json::parse(R"([{"manager":"w","operation":"Update",
      "apiVersion":"v1","time":"2024-05-01T10:05:00Z","fieldsType":"FieldsV1",
      "fieldsV1":{"f:data":{"f:b":{}}}}])"));
  }
  SECTION("absent falls back to the live object's") {
    next["metadata"].erase("managedFields");
    json out = update_managed_fields(cm, &created, next, writer("w", "v1", kT1));
    CHECK(has_entry(out, "creator", "Update"));
    CHECK(has_entry(out, "w", "Update"));
  }
  SECTION("a valid list replaces the live one") {
    next["metadata"]["managedFields"] = json::parse(R"([{"manager":"someone","operation":"Apply",
      "apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}])");
    json out = update_managed_fields(cm, &created, next, writer("w", "v1", kT1));
    CHECK_FALSE(has_entry(out, "creator", "Update"));
    CHECK(entry(out, "someone", "Apply")["fieldsV1"] == json::parse(R"({"f:data":{"f:a":{}}})"));
  }
  SECTION("an invalid list falls back to the live one") {
    next["metadata"]["managedFields"] = json::parse(R"([{"manager":"x","operation":"Delete",
      "apiVersion":"v1","fieldsType":"FieldsV1"}])");
    json out = update_managed_fields(cm, &created, next, writer("w", "v1", kT1));
    CHECK(has_entry(out, "creator", "Update"));
  }
  SECTION("a subresource write ignores what the request carries") {
    next["metadata"]["managedFields"] = json::array();
    json out = update_managed_fields(cm, &created, next, writer("w", "v1", kT1, "status"));
    CHECK(has_entry(out, "creator", "Update"));
  }
}

TEST_CASE("reset fields are owned by nobody through that endpoint", "[ssa][update]") {
  auto pod = kind("", "v1", "Pod");
  json live = json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
    "spec":{"containers":[{"name":"c","image":"i"}]},"status":{"phase":"Pending"}})");
  json next = live;
  next["status"]["phase"] = "Running";
  next["spec"]["containers"][0]["image"] = "j";
  Writer w = writer("kubelet", "v1", kT1, "status");
  w.reset_fields.insert({"f:spec"});
  json out = update_managed_fields(pod, &live, next, w);
  CHECK(entry(out, "kubelet", "Update")["fieldsV1"] ==
        json::parse(R"({"f:status":{"f:phase":{}}})"));
}

TEST_CASE("more than ten update managers fold the oldest into ancient-changes", "[ssa][update]") {
  auto cm = kind("", "v1", "ConfigMap");
  json object = config_map({{"k0", "v"}});
  object = update_managed_fields(cm, nullptr, object, writer("m00", "v1", "2024-05-01T10:00:00Z"));
  for (int i = 1; i <= 10; ++i) {
    json next = object;
    std::string two_digits = (i < 10 ? "0" : "") + std::to_string(i);
    std::string name = "m" + two_digits;
    std::string time = "2024-05-01T10:" + two_digits + ":00Z";
    next["data"]["k" + std::to_string(i)] = "v";
    object = update_managed_fields(cm, &object, next, writer(name, "v1", time.c_str()));
  }
  const json& entries = object["metadata"]["managedFields"];
  REQUIRE(entries.size() == 10);
  CHECK(entries[0]["manager"] == "ancient-changes");
  CHECK(entries[0]["time"] == "2024-05-01T10:01:00Z");
  CHECK(entries[0]["fieldsV1"] == json::parse(R"({"f:data":{".":{},"f:k0":{},"f:k1":{}}})"));
  CHECK(entries[9]["manager"] == "m10");
}

// ---------------------------------------------------------------------------------------------
// Apply

TEST_CASE("an apply configuration without metadata is applied, not a crash", "[ssa][apply]") {
  auto cm = kind("", "v1", "ConfigMap");
  ApplyResult r = apply(cm, nullptr, json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}},
                        writer("kubectl", "v1", kT0), false);
  REQUIRE(r.outcome == ApplyResult::Outcome::Ok);
  CHECK(r.object["kind"] == "ConfigMap");
}

TEST_CASE("apply creates the object and owns exactly the applied fields", "[ssa][apply]") {
  auto cm = kind("", "v1", "ConfigMap");
  ApplyResult r =
      apply(cm, nullptr, config_map({{"key", "v"}}), writer("kubectl", "v1", kT0), false);
  REQUIRE(r.outcome == ApplyResult::Outcome::Ok);
  CHECK(r.changed);
  CHECK(r.object["data"] == json{{"key", "v"}});
  CHECK(r.object["metadata"]["managedFields"] == json::parse(R"([{"manager":"kubectl",
    "operation":"Apply","apiVersion":"v1","time":"2024-05-01T10:00:00Z","fieldsType":"FieldsV1",
    "fieldsV1":{"f:data":{"f:key":{}}}}])"));

  SECTION("applying the same configuration again changes nothing") {
    ApplyResult again =
        apply(cm, &r.object, config_map({{"key", "v"}}), writer("kubectl", "v1", kT1), false);
    REQUIRE(again.outcome == ApplyResult::Outcome::Ok);
    CHECK_FALSE(again.changed);
    CHECK(again.object == r.object);
  }
}

TEST_CASE("apply conflicts with an update manager that owns a field it would change",
          "[ssa][apply]") {
  auto cm = kind("", "v1", "ConfigMap");
  json live = update_managed_fields(cm, nullptr, config_map({{"key", "old"}, {"other", "x"}}),
                                    writer("kubectl-client-side-apply", "v1", kT0));
  ApplyResult r =
      apply(cm, &live, config_map({{"key", "new"}}), writer("kubectl", "v1", kT1), false);
  REQUIRE(r.outcome == ApplyResult::Outcome::Conflict);
  REQUIRE(r.conflicts.size() == 1);
  json status = conflict_status(r.conflicts);
  CHECK(status == json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},
    "status":"Failure","reason":"Conflict","code":409,
    "message":"Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using v1: .data.key",
    "details":{"causes":[{"reason":"FieldManagerConflict",
      "message":"conflict with \"kubectl-client-side-apply\" using v1","field":".data.key"}]}})"));

  SECTION("an equal value is no conflict and both own the field") {
    ApplyResult same =
        apply(cm, &live, config_map({{"key", "old"}}), writer("kubectl", "v1", kT1), false);
    REQUIRE(same.outcome == ApplyResult::Outcome::Ok);
    CHECK_FALSE(same.changed);
    CHECK(entry(same.object, "kubectl", "Apply")["fieldsV1"] ==
          json::parse(R"({"f:data":{"f:key":{}}})"));
    CHECK(entry(same.object, "kubectl-client-side-apply", "Update")["fieldsV1"] ==
          json::parse(R"({"f:data":{".":{},"f:key":{},"f:other":{}}})"));
    // No change: upstream records no time for an entry it did not time before.
    CHECK_FALSE(entry(same.object, "kubectl", "Apply").contains("time"));
  }
  SECTION("force takes the field over") {
    ApplyResult forced =
        apply(cm, &live, config_map({{"key", "new"}}), writer("kubectl", "v1", kT1), true);
    REQUIRE(forced.outcome == ApplyResult::Outcome::Ok);
    CHECK(forced.object["data"] == json({{"key", "new"}, {"other", "x"}}));
    CHECK(entry(forced.object, "kubectl-client-side-apply", "Update")["fieldsV1"] ==
          json::parse(R"({"f:data":{".":{},"f:other":{}}})"));
    CHECK(entry(forced.object, "kubectl", "Apply")["fieldsV1"] ==
          json::parse(R"({"f:data":{"f:key":{}}})"));
    CHECK(entry(forced.object, "kubectl", "Apply")["time"] == kT1);
  }
  SECTION("the applier's own update entry conflicts too") {
    json own = update_managed_fields(cm, nullptr, config_map({{"key", "old"}}),
                                     writer("kubectl", "v1", kT0));
    ApplyResult r2 =
        apply(cm, &own, config_map({{"key", "new"}}), writer("kubectl", "v1", kT1), false);
    REQUIRE(r2.outcome == ApplyResult::Outcome::Conflict);
    CHECK(conflict_status(r2.conflicts)["message"] ==
          "Apply failed with 1 conflict: conflict with \"kubectl\" using v1: .data.key");
  }
}

TEST_CASE("conflicts with several managers are grouped by manager", "[ssa][apply]") {
  auto deployment = kind("apps", "v1", "Deployment");
  json live = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
    "spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"app","image":"a:1"}]}}}})");
  live = update_managed_fields(deployment, nullptr, live, writer("creator", "apps/v1", kT0));
  json scaled = live;
  scaled["spec"]["replicas"] = 3;
  scaled["spec"]["paused"] = true;
  live = update_managed_fields(deployment, &live, scaled, writer("hpa", "apps/v1", kT1));
  json config = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
    "spec":{"replicas":5,"paused":false,"template":{"spec":{"containers":[{"name":"app","image":"a:2"}]}}}})");
  ApplyResult r = apply(deployment, &live, config, writer("ci", "apps/v1", kT2), false);
  REQUIRE(r.outcome == ApplyResult::Outcome::Conflict);
  json status = conflict_status(r.conflicts);
  CHECK(status["message"] ==
        "Apply failed with 3 conflicts: conflicts with \"creator\" using apps/v1:\n"
        "- .spec.template.spec.containers[name=\"app\"].image\n"
        "conflicts with \"hpa\" using apps/v1:\n- .spec.paused\n- .spec.replicas");
  REQUIRE(status["details"]["causes"].size() == 3);
  CHECK(status["details"]["causes"][0]["field"] ==
        ".spec.template.spec.containers[name=\"app\"].image");
}

TEST_CASE("fields dropped from the applied configuration are removed unless someone owns them",
          "[ssa][apply]") {
  auto cm = kind("", "v1", "ConfigMap");
  ApplyResult first =
      apply(cm, nullptr, config_map({{"a", "1"}, {"b", "2"}}), writer("ci", "v1", kT0), false);
  REQUIRE(first.outcome == ApplyResult::Outcome::Ok);

  SECTION("unowned: removed") {
    ApplyResult r =
        apply(cm, &first.object, config_map({{"a", "1"}}), writer("ci", "v1", kT1), false);
    REQUIRE(r.outcome == ApplyResult::Outcome::Ok);
    CHECK(r.changed);
    CHECK(r.object["data"] == json{{"a", "1"}});
    CHECK(entry(r.object, "ci", "Apply")["fieldsV1"] == json::parse(R"({"f:data":{"f:a":{}}})"));
  }
  SECTION("owned by another applier: kept") {
    ApplyResult other =
        apply(cm, &first.object, config_map({{"b", "2"}}), writer("other", "v1", kT1), false);
    REQUIRE(other.outcome == ApplyResult::Outcome::Ok);
    ApplyResult r =
        apply(cm, &other.object, config_map({{"a", "1"}}), writer("ci", "v1", kT2), false);
    REQUIRE(r.outcome == ApplyResult::Outcome::Ok);
    CHECK(r.object["data"] == json({{"a", "1"}, {"b", "2"}}));
  }
  SECTION("owned by an updater: kept") {
    json edited = first.object;
    edited["data"]["b"] = "edited";
    json live = update_managed_fields(cm, &first.object, edited, writer("kubectl-edit", "v1", kT1));
    ApplyResult r = apply(cm, &live, config_map({{"a", "1"}}), writer("ci", "v1", kT2), false);
    REQUIRE(r.outcome == ApplyResult::Outcome::Ok);
    CHECK(r.object["data"] == json({{"a", "1"}, {"b", "edited"}}));
  }
  SECTION("everything dropped: the map goes") {
    json config = config_map({});
    config.erase("data");
    ApplyResult r = apply(cm, &first.object, config, writer("ci", "v1", kT1), false);
    REQUIRE(r.outcome == ApplyResult::Outcome::Ok);
    CHECK_FALSE(r.object.contains("data"));
    CHECK_FALSE(r.object["metadata"].contains("managedFields"));
  }
}

TEST_CASE("apply merges set lists and map lists item by item", "[ssa][apply]") {
  auto deployment = kind("apps", "v1", "Deployment");
  auto base = [](const json& containers, const json& finalizers) {
    json d = {{"apiVersion", "apps/v1"},
              {"kind", "Deployment"},
              {"metadata", {{"name", "d"}}},
              {"spec", {{"template", {{"spec", {{"containers", containers}}}}}}}};
    if (!finalizers.is_null()) {
      d["metadata"]["finalizers"] = finalizers;
    }
    return d;
  };
  ApplyResult a = apply(deployment, nullptr,
                        base(json::parse(R"([{"name":"app","image":"a:1"}])"), json{"a/x"}),
                        writer("team-a", "apps/v1", kT0), false);
  REQUIRE(a.outcome == ApplyResult::Outcome::Ok);
  ApplyResult b = apply(deployment, &a.object,
                        base(json::parse(R"([{"name":"sidecar","image":"s:1"}])"), json{"b/y"}),
                        writer("team-b", "apps/v1", kT1), false);
  REQUIRE(b.outcome == ApplyResult::Outcome::Ok);
  CHECK(b.object["spec"]["template"]["spec"]["containers"] ==
        json::parse(R"([{"name":"app","image":"a:1"},{"name":"sidecar","image":"s:1"}])"));
  CHECK(b.object["metadata"]["finalizers"] == json({"a/x", "b/y"}));
  CHECK(entry(b.object, "team-b", "Apply")["fieldsV1"] == json::parse(R"({
    "f:metadata":{"f:finalizers":{"v:\"b/y\"":{}}},
    "f:spec":{"f:template":{"f:spec":{"f:containers":{
      "k:{\"name\":\"sidecar\"}":{".":{},"f:image":{},"f:name":{}}}}}}})"));

  SECTION("an applier dropping its items removes only those") {
    ApplyResult r = apply(deployment, &b.object,
                          base(json::parse(R"([{"name":"app","image":"a:2"}])"), json::array()),
                          writer("team-a", "apps/v1", kT2), false);
    REQUIRE(r.outcome == ApplyResult::Outcome::Ok);
    CHECK(r.object["spec"]["template"]["spec"]["containers"] ==
          json::parse(R"([{"name":"app","image":"a:2"},{"name":"sidecar","image":"s:1"}])"));
    CHECK(r.object["metadata"]["finalizers"] == json({"b/y"}));
  }
}

TEST_CASE("apply replaces atomic lists and atomic maps whole", "[ssa][apply]") {
  auto service = kind("", "v1", "Service");
  json config = json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},
    "spec":{"selector":{"app":"a","tier":"web"},"ports":[{"port":80}],
            "externalIPs":["1.1.1.1","2.2.2.2"]}})");
  ApplyResult first = apply(service, nullptr, config, writer("ci", "v1", kT0), false);
  REQUIRE(first.outcome == ApplyResult::Outcome::Ok);
  CHECK(entry(first.object, "ci", "Apply")["fieldsV1"] == json::parse(R"({"f:spec":{
    "f:externalIPs":{},"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{}}},
    "f:selector":{}}})"));
  config["spec"]["selector"] = json{{"app", "b"}};
  config["spec"]["externalIPs"] = json{"3.3.3.3"};
  ApplyResult second = apply(service, &first.object, config, writer("ci", "v1", kT1), false);
  REQUIRE(second.outcome == ApplyResult::Outcome::Ok);
  CHECK(second.object["spec"]["selector"] == json{{"app", "b"}});
  CHECK(second.object["spec"]["externalIPs"] == json{"3.3.3.3"});
}

TEST_CASE("apply rejects configurations upstream rejects", "[ssa][apply]") {
  auto cm = kind("", "v1", "ConfigMap");
  json config = config_map({{"a", "1"}});
  SECTION("managedFields in the configuration") {
    config["metadata"]["managedFields"] = json::array();
    ApplyResult r = apply(cm, nullptr, config, writer("ci", "v1", kT0), false);
    CHECK(r.outcome == ApplyResult::Outcome::BadRequest);
    CHECK(r.message == "metadata.managedFields must be nil");
  }
  SECTION("another apiVersion") {
    config["apiVersion"] = "v2";
    ApplyResult r = apply(cm, nullptr, config, writer("ci", "v1", kT0), false);
    CHECK(r.outcome == ApplyResult::Outcome::BadRequest);
    CHECK(r.message ==
          "Incorrect version specified in apply patch. Specified patch version: v2, expected: v1");
  }
}

// ---------------------------------------------------------------------------------------------
// Field manager names

TEST_CASE("the default field manager is the user agent's product name", "[ssa][manager]") {
  CHECK(default_field_manager("kubectl/v1.32.0 (linux/amd64) kubernetes/abc") == "kubectl");
  CHECK(default_field_manager("Go-http-client/1.1") == "Go-http-client");
  CHECK(default_field_manager("") == "");
  CHECK(default_field_manager("a\tb\x01"
                              "c/1") == "abc");
  CHECK(default_field_manager(std::string(200, 'x')) == std::string(128, 'x'));
  // A multi-byte character that does not fit is left out whole.
  CHECK(default_field_manager(std::string(127, 'x') + "\xc3\xa9") == std::string(127, 'x'));
}

TEST_CASE("field manager validation answers 422 with upstream's texts", "[ssa][manager]") {
  CHECK_FALSE(validate_field_manager("PatchOptions", "kubectl", true, false).has_value());
  CHECK_FALSE(validate_field_manager("CreateOptions", "", false, false).has_value());

  auto required = validate_field_manager("PatchOptions", "", true, false);
  REQUIRE(required.has_value());
  CHECK(*required == json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},
    "status":"Failure","code":422,"reason":"Invalid",
    "message":"PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch",
    "details":{"group":"meta.k8s.io","kind":"PatchOptions","causes":[{"reason":"FieldValueRequired",
      "message":"Required value: is required for apply patch","field":"fieldManager"}]}})"));

  auto forced = validate_field_manager("PatchOptions", "m", false, true);
  REQUIRE(forced.has_value());
  CHECK((*forced)["message"] ==
        "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for "
        "non-apply patch");

  auto bad = validate_field_manager("UpdateOptions", "a\x01", false, false);
  REQUIRE(bad.has_value());
  CHECK((*bad)["message"] ==
        "UpdateOptions.meta.k8s.io \"\" is invalid: fieldManager: Invalid "
        "value: \"a\\x01\": invalid character U+0001 (at position 1)");

  auto both = validate_field_manager("CreateOptions", std::string(129, 'x') + "\x7f", false, false);
  REQUIRE(both.has_value());
  CHECK((*both)["details"]["causes"].size() == 2);
  CHECK((*both)["details"]["causes"][0]["message"] == "Too long: may not be more than 128 bytes");
  CHECK((*both)["message"].get<std::string>().rfind(
            "CreateOptions.meta.k8s.io \"\" is invalid: [fieldManager: Too long: may not be more "
            "than 128 bytes, fieldManager: Invalid value: ",
            0) == 0);
}
