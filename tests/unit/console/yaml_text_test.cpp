#include "console/model/yaml_text.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

using console::model::ManagedFields;
using console::model::to_yaml;
using nlohmann::json;

TEST_CASE("objects render as block YAML the way kubectl lays them out", "[console][model][yaml]") {
  const json pod = json::parse(R"({
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "labels": {"app": "web"}, "annotations": {}},
    "spec": {
      "containers": [
        {"name": "c", "image": "nginx:1.25", "ports": [{"containerPort": 80}], "args": []},
        {"name": "d", "command": ["sh", "-c", "echo hi"]}
      ],
      "nodeSelector": null,
      "hostNetwork": false,
      "priority": 0.5
    }
  })");
  CHECK(to_yaml(pod) == R"(apiVersion: v1
kind: Pod
metadata:
  annotations: {}
  labels:
    app: web
  name: web
spec:
  containers:
  - args: []
    image: nginx:1.25
    name: c
    ports:
    - containerPort: 80
  - command:
    - sh
    - -c
    - echo hi
    name: d
  hostNetwork: false
  nodeSelector: null
  priority: 0.5
)");
}

TEST_CASE("strings are quoted only where plain text would read back differently",
          "[console][model][yaml]") {
  struct Row {
    std::string value;
    std::string rendered;
  };
  const auto row = GENERATE_REF(values<Row>({
      {"web", "web"},
      {"nginx:1.25", "nginx:1.25"},
      {"500m", "500m"},
      {"1.2.3-beta", "1.2.3-beta"},
      {"a b", "a b"},
      {"", "\"\""},
      {"true", "\"true\""},
      {"False", "\"False\""},
      {"yes", "\"yes\""},
      {"off", "\"off\""},
      {"null", "\"null\""},
      {"~", "\"~\""},
      {"42", "\"42\""},
      {"-1", "\"-1\""},
      {"3.14", "\"3.14\""},
      {"1e3", "\"1e3\""},
      {"0x1F", "\"0x1F\""},
      {".inf", "\".inf\""},
      {"1:30", "\"1:30\""},
      {"2024-06-01T12:00:00Z", "\"2024-06-01T12:00:00Z\""},
      {"-c", "-c"},
      {"--all", "--all"},
      {"-", "\"-\""},
      {"- x", "\"- x\""},
      {"---", "\"---\""},
      {"...", "\"...\""},
      {"?x", "\"?x\""},
      {"*star", "\"*star\""},
      {"#hash", "\"#hash\""},
      {"{x}", "\"{x}\""},
      {"key: value", "\"key: value\""},
      {"a #b", "\"a #b\""},
      {"colon:", "\"colon:\""},
      {" padded", "\" padded\""},
      {"tab\there", "\"tab\\there\""},
      {"quote\"back\\slash\x01", "\"quote\\\"back\\\\slash\\x01\""},
  }));
  CAPTURE(row.value);
  CHECK(to_yaml(json{{"k", row.value}}) == "k: " + row.rendered + "\n");
}

TEST_CASE("keys are quoted by the same rules", "[console][model][yaml]") {
  CHECK(to_yaml(json{{"example.com/owner", "me"}}) == "example.com/owner: me\n");
  CHECK(to_yaml(json{{"true", 1}}) == "\"true\": 1\n");
  CHECK(to_yaml(json{{"", 1}}) == "\"\": 1\n");
}

TEST_CASE("multi-line strings become literal blocks", "[console][model][yaml]") {
  struct Row {
    std::string value;
    std::string rendered;
  };
  const auto row = GENERATE_REF(values<Row>({
      {"a\nb\n", "k: |\n  a\n  b\n"},
      {"a\nb", "k: |-\n  a\n  b\n"},
      {"a\nb\n\n", "k: |+\n  a\n  b\n\n"},
      {"a\n\nb\n", "k: |\n  a\n\n  b\n"},
      {"a\n  indented\n", "k: |\n  a\n    indented\n"},
      {" leading\nspace", "k: \" leading\\nspace\"\n"},  // needs an indentation indicator
      {"\n\n", "k: \"\\n\\n\"\n"},                       // nothing but newlines
      {"bad\x02\nline", "k: \"bad\\x02\\nline\"\n"},     // other control characters
  }));
  CAPTURE(row.value);
  CHECK(to_yaml(json{{"k", row.value}}) == row.rendered);
}

TEST_CASE("literal blocks indent under their parent", "[console][model][yaml]") {
  const json config = {{"data", {{"script", "echo 1\necho 2\n"}}},
                       {"items", {"one\ntwo\n", {{"inner", "x\ny\n"}}}}};
  CHECK(to_yaml(config) == R"(data:
  script: |
    echo 1
    echo 2
items:
- |
  one
  two
- inner: |
    x
    y
)");
}

TEST_CASE("arrays nest with one dash per level", "[console][model][yaml]") {
  CHECK(to_yaml(json::parse(R"([[1, 2], [], [{"a": 1, "b": [3]}], "x"])")) == R"(- - 1
  - 2
- []
- - a: 1
    b:
    - 3
- x
)");
}

TEST_CASE("scalars and empty values render alone", "[console][model][yaml]") {
  CHECK(to_yaml(json::object()) == "{}\n");
  CHECK(to_yaml(json::array()) == "[]\n");
  CHECK(to_yaml(json(7)) == "7\n");
  CHECK(to_yaml(json(nullptr)) == "null\n");
  CHECK(to_yaml(json("two\nlines\n")) == "|\n  two\n  lines\n");
}

TEST_CASE("managedFields fold into one comment unless asked for", "[console][model][yaml]") {
  const json object = json::parse(R"({
    "kind": "ConfigMap",
    "metadata": {
      "name": "cm",
      "managedFields": [{"manager": "kubectl", "operation": "Apply"},
                        {"manager": "kube-controller-manager", "operation": "Update"}],
      "uid": "u"
    },
    "spec": {"managedFields": "only metadata's are folded"}
  })");
  CHECK(to_yaml(object) == R"(kind: ConfigMap
metadata:
  # managedFields: 2 entries (folded)
  name: cm
  uid: u
spec:
  managedFields: only metadata's are folded
)");
  CHECK(to_yaml(object, ManagedFields::Show) == R"(kind: ConfigMap
metadata:
  managedFields:
  - manager: kubectl
    operation: Apply
  - manager: kube-controller-manager
    operation: Update
  name: cm
  uid: u
spec:
  managedFields: only metadata's are folded
)");

  json one = object;
  one["metadata"]["managedFields"].erase(1);
  CHECK(to_yaml(one).find("# managedFields: 1 entry (folded)\n") != std::string::npos);
}
