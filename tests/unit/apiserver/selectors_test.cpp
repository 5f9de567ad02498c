#include "registry/selectors.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apiserver/registry.h"

using apiserver::registry::FieldOperator;
using apiserver::registry::FieldSelector;
using apiserver::registry::LabelOperator;
using apiserver::registry::LabelSelector;
using apiserver::registry::Registry;
using apiserver::registry::Resource;
using nlohmann::json;

namespace {

// Upstream's validation texts, assembled once so the tables below stay readable. RegexError
// really does render examples as "'a',  or 'b', " (comma, two spaces).
const std::string kNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const std::string kNameRule =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation "
    "is '" +
    kNameFmt + "')";
const std::string kValueRule =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  "
    "or "
    "'12345', regex used for validation is '(" +
    kNameFmt + ")?')";
const std::string kSubdomainRule =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

Resource builtin(const std::string& group, const std::string& resource) {
  static const auto registry = Registry::builtin();
  const auto snapshot = registry->snapshot();
  const Resource* r = snapshot->find(group, "v1", resource);
  REQUIRE(r != nullptr);
  return *r;
}

std::string label_error(const std::string& text) {
  auto selector = LabelSelector::parse(text);
  REQUIRE_FALSE(selector.ok());
  return selector.error();
}

std::string field_error(const std::string& text, const Resource& resource) {
  auto selector = FieldSelector::parse(text, resource);
  REQUIRE_FALSE(selector.ok());
  return selector.error();
}

}  // namespace

TEST_CASE("Label selectors match label sets per operator", "[selectors]") {
  struct Row {
    std::string selector;
    json labels;
    bool matches;
  };
  const auto row = GENERATE(values<Row>({
      {"app=web", {{"app", "web"}}, true},
      {"app=web", {{"app", "db"}}, false},
      {"app=web", json(), false},
      {"app==web", {{"app", "web"}}, true},
      {"app!=web", {{"app", "db"}}, true},
      {"app!=web", {{"app", "web"}}, false},
      {"app!=web", json(), true},  // a missing key is "not equal"
      {"app!=web", json::object(), true},
      {"app=", {{"app", ""}}, true},
      {"app=", json::object(), false},
      {"env in (prod,qa)", {{"env", "qa"}}, true},
      {"env in (prod,qa)", {{"env", "dev"}}, false},
      {"env in (prod,qa)", json::object(), false},
      {"env notin (prod,qa)", {{"env", "dev"}}, true},
      {"env notin (prod,qa)", {{"env", "prod"}}, false},
      {"env notin (prod,qa)", json(), true},
      {"env in ()", {{"env", ""}}, true},
      {"env in (,)", {{"env", ""}}, true},
      {"env in (a,,b)", {{"env", ""}}, true},
      {"env in (a,,b)", {{"env", "b"}}, true},
      {"tier", {{"tier", ""}}, true},
      {"tier", {{"app", "x"}}, false},
      {"!tier", {{"app", "x"}}, true},
      {"!tier", {{"tier", "x"}}, false},
      {"!tier", json(), true},
      {"replicas>5", {{"replicas", "6"}}, true},
      {"replicas>5", {{"replicas", "5"}}, false},
      {"replicas>5", {{"replicas", "six"}}, false},
      {"replicas>5", json::object(), false},
      {"replicas<5", {{"replicas", "-3"}}, true},
      {"app=web,tier!=db,!legacy", {{"app", "web"}, {"tier", "fe"}}, true},
      {"app=web,tier!=db,!legacy", {{"app", "web"}, {"legacy", "1"}}, false},
      {" \tapp = web ,\n env  in ( a , b ) ", {{"app", "web"}, {"env", "b"}}, true},
      {"in in (in)", {{"in", "in"}}, true},  // keywords are identifiers where values go
      {"example.com/role=api", {{"example.com/role", "api"}}, true},
      {"", json(), true},
      {"   ", {{"a", "b"}}, true},
  }));
  CAPTURE(row.selector, row.labels.dump());
  auto selector = LabelSelector::parse(row.selector);
  REQUIRE(selector.ok());
  CHECK(selector->matches(row.labels) == row.matches);
}

TEST_CASE("Label selectors parse into sorted requirements with sorted value sets", "[selectors]") {
  auto selector = LabelSelector::parse("z notin (b,a,b),a==1,!m,k");
  REQUIRE(selector.ok());
  const auto& rs = selector->requirements();
  REQUIRE(rs.size() == 4);
  CHECK(rs[0].key == "a");
  CHECK(rs[0].op == LabelOperator::DoubleEquals);
  CHECK(rs[0].values == std::vector<std::string>{"1"});
  CHECK(rs[1].key == "k");
  CHECK(rs[1].op == LabelOperator::Exists);
  CHECK(rs[2].key == "m");
  CHECK(rs[2].op == LabelOperator::DoesNotExist);
  CHECK(rs[3].key == "z");
  CHECK(rs[3].op == LabelOperator::NotIn);
  CHECK(rs[3].values == std::vector<std::string>{"a", "b"});
  CHECK_FALSE(selector->empty());
  CHECK(LabelSelector::parse(" ")->empty());
}

TEST_CASE("Invalid label selectors fail with kube-apiserver's texts", "[selectors]") {
  struct Row {
    std::string selector;
    std::string error;
  };
  const std::string long_name(64, 'a');
  const auto row = GENERATE_COPY(values<Row>({
      {"a=b=c", "found '=', expected: ',' or 'end of string'"},
      {"!a=b", "found '=', expected: ',' or 'end of string'"},
      {"a=b c", "found 'c', expected: ',' or 'end of string'"},
      {"a=b,", "found '', expected: identifier after ','"},
      {"a=b,,c", "found ',', expected: identifier after ','"},
      {",a", "found ',', expected: !, identifier, or 'end of string'"},
      {"=a", "found '=', expected: !, identifier, or 'end of string'"},
      {"a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"},
      {"a in b", "unable to parse requirement: found 'b' expected: '('"},
      {"a in (b", "unable to parse requirement: found '', expected: ',' or ')'"},
      {"a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'"},
      {"a in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"},
      {"a in (b,=)", "unable to parse requirement: found '=', expected: ',', or identifier"},
      {"a=(b)", "unable to parse requirement: found '(', expected: identifier"},
      {"!", "unable to parse requirement: found '', expected: identifier"},
      {"!!a", "unable to parse requirement: found '!', expected: identifier"},
      {"a>b",
       "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, "
       "the value must be an integer"},
      {"a@b=c",
       "unable to parse requirement: <nil>: Invalid value: \"a@b\": name part " + kNameRule},
      {"a/b/c=d",
       "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name " +
           kNameRule +
           " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"},
      {"/a",
       "unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be "
       "non-empty"},
      {"a/",
       "unable to parse requirement: <nil>: Invalid value: \"a/\": name part must be "
       "non-empty; name part " +
           kNameRule},
      {"Example.com/a",
       "unable to parse requirement: <nil>: Invalid value: \"Example.com/a\": "
       "prefix part " +
           kSubdomainRule},
      {long_name, "unable to parse requirement: <nil>: Invalid value: \"" + long_name +
                      "\": name part must be no more than 63 characters"},
      {"app=caf\u00e9",
       "unable to parse requirement: values[0][app]: Invalid value: \"caf\u00e9\": " + kValueRule},
      {"app=-x",
       "unable to parse requirement: values[0][app]: Invalid value: \"-x\": " + kValueRule},
      {"app=\"x\"",
       "unable to parse requirement: values[0][app]: Invalid value: \"\\\"x\\\"\": " + kValueRule},
      {"app=" + long_name, "unable to parse requirement: values[0][app]: Invalid value: \"" +
                               long_name + "\": must be no more than 63 characters"},
      {"app in (y_,-x)",
       "unable to parse requirement: [values[0][app]: Invalid value: \"-x\": " + kValueRule +
           ", values[1][app]: Invalid value: \"y_\": " + kValueRule + "]"},
  }));
  CAPTURE(row.selector);
  CHECK(label_error(row.selector) == row.error);
}

TEST_CASE("Label keys with a valid DNS prefix are accepted", "[selectors]") {
  const auto text = GENERATE(as<std::string>{}, "k8s.io/app", "a.b-c.d/Name_1.x", "A-1",
                             "app.kubernetes.io/name in (web)");
  CAPTURE(text);
  CHECK(LabelSelector::parse(text).ok());
}

TEST_CASE("metav1.LabelSelector objects convert like LabelSelectorAsSelector", "[selectors]") {
  SECTION("matchLabels and matchExpressions are ANDed") {
    auto selector = LabelSelector::from_json(json::parse(R"({"matchLabels": {"app": "web"},
                        "matchExpressions": [
                          {"key": "tier", "operator": "In", "values": ["fe", "be"]},
                          {"key": "track", "operator": "NotIn", "values": ["canary"]},
                          {"key": "owner", "operator": "Exists"},
                          {"key": "legacy", "operator": "DoesNotExist"}]})"));
    REQUIRE(selector.ok());
    CHECK_FALSE(selector->empty());
    CHECK(selector->requirements().size() == 5);
    CHECK(selector->matches({{"app", "web"}, {"tier", "fe"}, {"owner", "x"}}));
    CHECK(selector->matches({{"app", "web"}, {"tier", "be"}, {"owner", ""}, {"track", "stable"}}));
    CHECK_FALSE(selector->matches({{"app", "web"}, {"tier", "fe"}}));
    CHECK_FALSE(
        selector->matches({{"app", "web"}, {"tier", "fe"}, {"owner", "x"}, {"track", "canary"}}));
    CHECK_FALSE(
        selector->matches({{"app", "web"}, {"tier", "fe"}, {"owner", "x"}, {"legacy", "1"}}));
    CHECK_FALSE(selector->matches(json()));
  }
  SECTION("an empty selector matches everything, a null one nothing") {
    auto everything = LabelSelector::from_json(json::object());
    REQUIRE(everything.ok());
    CHECK(everything->empty());
    CHECK(everything->matches(json()));
    auto nothing = LabelSelector::from_json(json());
    REQUIRE(nothing.ok());
    CHECK_FALSE(nothing->empty());
    CHECK_FALSE(nothing->matches(json::object()));
    CHECK_FALSE(nothing->matches({{"a", "b"}}));
  }
  SECTION("invalid selectors fail with upstream texts") {
    struct Row {
      std::string selector;
      std::string error;
    };
    const auto row = GENERATE_COPY(values<Row>({
        {R"({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]})",
         "\"Gt\" is not a valid label selector operator"},
        {R"({"matchExpressions": [{"key": "a", "operator": "In"}]})",
         "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be "
         "empty"},
        {R"({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": []}]})",
         "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be "
         "empty"},
        {R"({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x", "y"]}]})",
         "values: Invalid value: []string{\"x\", \"y\"}: values set must be empty for exists and "
         "does not exist"},
        {R"({"matchLabels": {"a b": "c"}})", "key: Invalid value: \"a b\": name part " + kNameRule},
        {R"({"matchLabels": {"app": "-x"}})",
         "values[0][app]: Invalid value: \"-x\": " + kValueRule},
        {R"({"matchLabels": {"a b": "-x"}})",
         "[key: Invalid value: \"a b\": name part " + kNameRule +
             ", values[0][a b]: Invalid value: \"-x\": " + kValueRule + "]"},
    }));
    CAPTURE(row.selector);
    auto selector = LabelSelector::from_json(json::parse(row.selector));
    REQUIRE_FALSE(selector.ok());
    CHECK(selector.error() == row.error);
  }
}

TEST_CASE("Field selectors match the fields each kind exposes", "[selectors]") {
  const json pod = json::parse(R"({
      "metadata": {"name": "web-0", "namespace": "prod"},
      "spec": {"nodeName": "node-1", "restartPolicy": "Always",
               "schedulerName": "default-scheduler", "serviceAccountName": "default"},
      "status": {"phase": "Running", "podIP": "10.0.0.9",
                 "podIPs": [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}]}})");
  const json host_pod = json::parse(R"({
      "metadata": {"name": "agent", "namespace": "kube-system"},
      "spec": {"hostNetwork": true},
      "status": {"phase": "Pending", "podIP": "192.168.1.5"}})");
  const json secret = json::parse(
      R"({"metadata": {"name": "tls", "namespace": "prod"}, "type": "kubernetes.io/tls"})");
  const json event = json::parse(R"({
      "metadata": {"name": "web-0.17a", "namespace": "prod"},
      "involvedObject": {"kind": "Pod", "name": "web-0", "namespace": "prod", "uid": "u-1"},
      "reason": "Killing", "type": "Normal", "source": {"component": "kubelet"},
      "reportingComponent": "kubelet"})");
  const json cordoned =
      json::parse(R"({"metadata": {"name": "n1"}, "spec": {"unschedulable": true}})");
  const json node = json::parse(R"({"metadata": {"name": "n2"}, "spec": {}})");
  const json job = json::parse(R"({"metadata": {"name": "pi", "namespace": "d"},
                                   "status": {"succeeded": 1}})");
  const json new_job = json::parse(R"({"metadata": {"name": "new", "namespace": "d"}})");
  const json rc = json::parse(R"({"metadata": {"name": "rc", "namespace": "d"}, "status": {}})");
  const json deployment = json::parse(R"({"metadata": {"name": "web", "namespace": "prod"}})");
  const json clusterrole = json::parse(R"({"metadata": {"name": "admin"}})");

  struct Row {
    std::string group;
    std::string resource;
    std::string selector;
    json object;
    bool matches;
  };
  const auto row = GENERATE_COPY(values<Row>({
      {"", "pods", "spec.nodeName=node-1", pod, true},
      {"", "pods", "spec.nodeName=node-2", pod, false},
      {"", "pods", "spec.nodeName==node-1", pod, true},
      {"", "pods", "spec.nodeName!=node-1", pod, false},
      {"", "pods", "spec.nodeName=", host_pod, true},
      {"", "pods", "spec.host=node-1", pod, true},
      {"", "pods", "status.phase!=Running", pod, false},
      {"", "pods", "status.phase!=Running", host_pod, true},
      {"", "pods", "metadata.name=web-0,metadata.namespace=prod", pod, true},
      {"", "pods", "metadata.name=web-0,metadata.namespace=dev", pod, false},
      {"", "pods", "spec.restartPolicy=Always,spec.schedulerName=default-scheduler", pod, true},
      {"", "pods", "spec.serviceAccountName=default", pod, true},
      {"", "pods", "spec.hostNetwork=false", pod, true},
      {"", "pods", "spec.hostNetwork=true", host_pod, true},
      {"", "pods", "status.podIP=10.0.0.1", pod, true},  // podIPs[0] wins over podIP
      {"", "pods", "status.podIP=10.0.0.9", pod, false},
      {"", "pods", "status.podIP=192.168.1.5", host_pod, true},
      {"", "pods", "status.podIPs=", pod, true},  // accepted, but never a selectable value
      {"", "pods", "status.podIPs=10.0.0.1", pod, false},
      {"", "pods", "status.nominatedNodeName=", pod, true},
      {"", "secrets", "type=kubernetes.io/tls", secret, true},
      {"", "secrets", "type!=Opaque,metadata.name=tls", secret, true},
      {"", "events", "involvedObject.name=web-0,reason=Killing", event, true},
      {"", "events", "involvedObject.kind=Pod,involvedObject.uid=u-1,type=Normal", event, true},
      {"", "events", "source=kubelet,reportingComponent=kubelet", event, true},
      {"", "events", "involvedObject.fieldPath=", event, true},
      {"", "events", "reason=Started", event, false},
      {"", "nodes", "spec.unschedulable=true", cordoned, true},
      {"", "nodes", "spec.unschedulable=false", node, true},
      {"", "nodes", "spec.unschedulable!=true", cordoned, false},
      {"", "replicationcontrollers", "status.replicas=0", rc, true},
      {"batch", "jobs", "status.successful=1", job, true},
      {"batch", "jobs", "status.successful=0", new_job, true},
      {"apps", "deployments", "metadata.name=web", deployment, true},
      {"rbac.authorization.k8s.io", "clusterroles", "metadata.namespace=", clusterrole, true},
      {"rbac.authorization.k8s.io", "clusterroles", "metadata.namespace!=x", clusterrole, true},
      {"", "pods", "", pod, true},
      {"", "pods", ",", pod, true},
  }));
  CAPTURE(row.resource, row.selector);
  auto selector = FieldSelector::parse(row.selector, builtin(row.group, row.resource));
  REQUIRE(selector.ok());
  CHECK(selector->matches(row.object) == row.matches);
}

TEST_CASE("Field selector values unescape backslash sequences", "[selectors]") {
  const Resource pods = builtin("", "pods");
  struct Row {
    std::string selector;
    std::string value;
  };
  const auto row = GENERATE(values<Row>({
      {R"(metadata.name=a\,b)", "a,b"},
      {R"(metadata.name=a\=b)", "a=b"},
      {R"(metadata.name=a\\b)", R"(a\b)"},
      {R"(metadata.name==a)", "a"},
      {"metadata.name= a b ", " a b "},
  }));
  CAPTURE(row.selector);
  auto selector = FieldSelector::parse(row.selector, pods);
  REQUIRE(selector.ok());
  const auto rs = selector->requirements();
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].field == "metadata.name");
  CHECK(rs[0].op == FieldOperator::Equals);
  CHECK(rs[0].value == row.value);
  CHECK(selector->matches({{"metadata", {{"name", row.value}}}}));
}

TEST_CASE("exact_name reports a pinned metadata.name", "[selectors]") {
  const Resource pods = builtin("", "pods");
  struct Row {
    std::string selector;
    std::optional<std::string> name;
  };
  const auto row = GENERATE(values<Row>({
      {"metadata.name=web-0", std::string("web-0")},
      {"metadata.name==web-0,status.phase=Running", std::string("web-0")},
      {"metadata.name!=web-0", std::nullopt},
      {"spec.nodeName=n1", std::nullopt},
      {"", std::nullopt},
  }));
  CAPTURE(row.selector);
  auto selector = FieldSelector::parse(row.selector, pods);
  REQUIRE(selector.ok());
  CHECK(selector->exact_name() == row.name);
  CHECK(selector->empty() == row.selector.empty());
}

TEST_CASE("Invalid field selectors fail with kube-apiserver's texts", "[selectors]") {
  struct Row {
    std::string group;
    std::string resource;
    std::string selector;
    std::string error;
  };
  const auto row = GENERATE(values<Row>({
      {"", "pods", "spec.foo=bar", "field label not supported: spec.foo"},
      {"", "pods", "status.bar=1,spec.foo=bar", "field label not supported: spec.foo"},
      {"", "nodes", "metadata.namespace=x", "field label not supported: metadata.namespace"},
      {"", "secrets", "data=x", "field label not supported: data"},
      {"", "events", "involvedObject.foo=x", "field label not supported: involvedObject.foo"},
      {"batch", "jobs", "status.succeeded=1",
       "field label \"status.succeeded\" not supported for batchv1.Job"},
      {"apps", "deployments", "status.replicas=1",
       "\"status.replicas\" is not a known field selector: only \"metadata.name\", "
       "\"metadata.namespace\""},
      {"apps", "replicasets", "spec.x\t=1",
       "\"spec.x\\t\" is not a known field selector: only \"metadata.name\", "
       "\"metadata.namespace\""},
      // Labels are quoted like Go's %q: printable UTF-8 kept, invalid bytes escaped.
      {"apps", "replicasets", "spec.\u00fc=1",
       "\"spec.\u00fc\" is not a known field selector: only \"metadata.name\", "
       "\"metadata.namespace\""},
      {"apps", "replicasets", "\xff=1",
       "\"\\xff\" is not a known field selector: only \"metadata.name\", "
       "\"metadata.namespace\""},
      {"", "pods", "foo", "invalid selector: 'foo'; can't understand 'foo'"},
      {"", "pods", "metadata.name=a,b",
       "invalid selector: 'metadata.name=a,b'; can't understand 'b'"},
      // Syntax of every term is checked before any label.
      {"", "pods", "a.bad=1,zzz", "invalid selector: 'a.bad=1,zzz'; can't understand 'zzz'"},
      {"", "pods", R"(metadata.name=a\b)",
       R"(invalid field selector: invalid escape sequence: \b)"},
      {"", "pods", R"(metadata.name=a\)", R"(invalid field selector: invalid escape sequence: \)"},
      {"", "pods", "metadata.name=a=b", "invalid field selector: unescaped character in value: 61"},
      {"", "pods", "metadata.name===a", "invalid field selector: unescaped character in value: 61"},
  }));
  CAPTURE(row.resource, row.selector);
  CHECK(field_error(row.selector, builtin(row.group, row.resource)) == row.error);
}
