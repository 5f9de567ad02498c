#include "kubeconfig.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "../temp_dir.h"

namespace fs = std::filesystem;

namespace {

using testing_support::mode_of;
using testing_support::overwrite_file;
using testing_support::read_file;
using testing_support::TempDir;

std::string base64_decode(const std::string& in) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : in) {
    if (c == '=') {
      break;
    }
    size_t v = kAlphabet.find(c);
    REQUIRE(v != std::string::npos);
    bits = bits << 6 | static_cast<uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  return out;
}

// A node as text that keeps what matters to a Go reader: structure, order and, for scalars,
// whether they were quoted.
std::string dump(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      std::string out = "{";
      for (const auto& entry : node) {
        out += dump(entry.first) + ":" + dump(entry.second) + ",";
      }
      return out + "}";
    }
    case YAML::NodeType::Sequence: {
      std::string out = "[";
      for (const auto& item : node) {
        out += dump(item) + ",";
      }
      return out + "]";
    }
    case YAML::NodeType::Scalar:
      return (node.Tag() == "!" ? "'" : "") + node.Scalar();
    default:
      return "~";
  }
}

YAML::Node find_named(const YAML::Node& list, const std::string& name) {
  for (const auto& entry : list) {
    if (entry["name"].as<std::string>() == name) {
      return entry;
    }
  }
  FAIL("no entry named " << name);
  return {};
}

const std::string kCa = "-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n";
const std::string kCert = "-----BEGIN CERTIFICATE-----\nMIIBcert\n-----END CERTIFICATE-----\n";
const std::string kKey = "-----BEGIN PRIVATE KEY-----\nMIGHkey\n-----END PRIVATE KEY-----\n";

// A kubeconfig as tools leave it: two other clusters, users and contexts, an exec plugin, quoted
// strings that look like other types, extensions, preferences and an unknown top-level field.
const std::string kExisting = R"(apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTg==
    server: https://127.0.0.1:39211
  name: kind-dev
- cluster:
    server: https://prod.example.com
    proxy-url: socks5://localhost:1080
    insecure-skip-tls-verify: false
    extensions:
    - name: client.authentication.k8s.io/exec
      extension:
        audience: "12345"
  name: prod
contexts:
- context:
    cluster: kind-dev
    user: kind-dev
    namespace: "0123"
  name: kind-dev
- context:
    cluster: prod
    user: prod-admin
  name: prod
current-context: prod
preferences:
  colors: true
users:
- name: kind-dev
  user:
    client-certificate-data: LS0tLS1DRVJU
    client-key-data: LS0tLS1LRVk=
- name: prod-admin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: [eks, get-token, --cluster-name, prod]
      env:
      - name: AWS_STS_REGIONAL_ENDPOINTS
        value: "true"
      interactiveMode: IfAvailable
      provideClusterInfo: false
x-tool-settings: {retries: 3}
)";

}  // namespace

TEST_CASE("make_kubeconfig names cluster, user and context kube-sandbox", "[kubeconfig]") {
  std::string text = sandbox::make_kubeconfig("https://127.0.0.1:6443", kCa, kCert, kKey);
  YAML::Node doc = YAML::Load(text);

  CHECK(doc["apiVersion"].as<std::string>() == "v1");
  CHECK(doc["kind"].as<std::string>() == "Config");
  CHECK(doc["current-context"].as<std::string>() == "kube-sandbox");
  CHECK(doc.begin()->first.as<std::string>() == "apiVersion");
  REQUIRE(doc["clusters"].size() == 1);
  REQUIRE(doc["users"].size() == 1);
  REQUIRE(doc["contexts"].size() == 1);

  YAML::Node cluster = doc["clusters"][0];
  CHECK(cluster["name"].as<std::string>() == "kube-sandbox");
  CHECK(cluster["cluster"]["server"].as<std::string>() == "https://127.0.0.1:6443");
  CHECK(base64_decode(cluster["cluster"]["certificate-authority-data"].as<std::string>()) == kCa);

  YAML::Node context = doc["contexts"][0];
  CHECK(context["name"].as<std::string>() == "kube-sandbox");
  CHECK(context["context"]["cluster"].as<std::string>() == "kube-sandbox");
  CHECK(context["context"]["user"].as<std::string>() == "kube-sandbox");

  YAML::Node user = doc["users"][0];
  CHECK(user["name"].as<std::string>() == "kube-sandbox");
  CHECK(base64_decode(user["user"]["client-certificate-data"].as<std::string>()) == kCert);
  CHECK(base64_decode(user["user"]["client-key-data"].as<std::string>()) == kKey);
  CHECK_FALSE(user["user"]["token"]);
}

TEST_CASE("make_kubeconfig adds a token only when given one, and keeps it a string",
          "[kubeconfig]") {
  auto [token, present] = GENERATE(table<std::optional<std::string>, bool>({
      {std::nullopt, false},
      {std::string(), false},
      {std::string("0f3c9a"), true},
      {std::string("1234e5"), true},  // would read back as a number if unquoted
      {std::string("true"), true},
  }));
  CAPTURE(token.value_or("<none>"));
  YAML::Node doc = YAML::Load(sandbox::make_kubeconfig("https://h:1", kCa, kCert, kKey, token));
  YAML::Node user = doc["users"][0]["user"];
  REQUIRE(static_cast<bool>(user["token"]) == present);
  if (present) {
    CHECK(user["token"].as<std::string>() == *token);
    CHECK(user["token"].Tag() == "!");  // quoted: a string to any YAML reader
  }
}

TEST_CASE("base64 fields decode to the exact bytes for every padding length", "[kubeconfig]") {
  auto pem = GENERATE(
      values<std::string>({"", "a", "ab", "abc", "abcd", std::string("\xff\x00\x80 binary", 10)}));
  YAML::Node doc = YAML::Load(sandbox::make_kubeconfig("https://h:1", pem, pem, pem));
  CHECK(base64_decode(doc["users"][0]["user"]["client-key-data"].as<std::string>()) == pem);
}

TEST_CASE("write_kubeconfig replaces the file atomically with mode 0600", "[kubeconfig]") {
  TempDir tmp("ks-kubeconfig-test");
  SECTION("a new file in new directories") {
    fs::path path = tmp.path() / "a" / "b" / "config";
    REQUIRE(sandbox::write_kubeconfig(path, "one\n") == std::nullopt);
    CHECK(read_file(path) == "one\n");
    CHECK(mode_of(path) == 0600);
    CHECK(mode_of(tmp.path() / "a") == 0700);
    CHECK(mode_of(tmp.path() / "a" / "b") == 0700);
  }
  SECTION("an existing, looser file") {
    fs::path path = tmp.path() / "config";
    overwrite_file(path, "old\n");
    fs::permissions(path, fs::perms(0644));
    REQUIRE(sandbox::write_kubeconfig(path, "new\n") == std::nullopt);
    CHECK(read_file(path) == "new\n");
    CHECK(mode_of(path) == 0600);
    CHECK(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()) == 1);
  }
  SECTION("a symbolic link keeps pointing at the file it names") {
    fs::create_directory(tmp.path() / "real");
    overwrite_file(tmp.path() / "real" / "config", "old\n");
    fs::create_symlink("real/config", tmp.path() / "link");
    REQUIRE(sandbox::write_kubeconfig(tmp.path() / "link", "new\n") == std::nullopt);
    CHECK(fs::is_symlink(tmp.path() / "link"));
    CHECK(read_file(tmp.path() / "real" / "config") == "new\n");
  }
  SECTION("an unwritable directory leaves an error naming the file") {
    fs::create_directory(tmp.path() / "ro");
    fs::permissions(tmp.path() / "ro", fs::perms(0500));
    if (::geteuid() == 0) {
      SUCCEED("root ignores directory permissions");
    } else {
      auto error = sandbox::write_kubeconfig(tmp.path() / "ro" / "config", "x");
      REQUIRE(error);
      CHECK(error->find((tmp.path() / "ro" / "config").string()) == 0);
    }
  }
}

TEST_CASE("merge_kubeconfig adds kube-sandbox and keeps everything else", "[kubeconfig]") {
  TempDir tmp("ks-kubeconfig-test");
  fs::path path = tmp.path() / "config";
  overwrite_file(path, kExisting);
  YAML::Node before = YAML::Load(kExisting);

  REQUIRE(sandbox::merge_kubeconfig(path, sandbox::make_kubeconfig("https://127.0.0.1:6443", kCa,
                                                                   kCert, kKey)) == std::nullopt);
  CHECK(mode_of(path) == 0600);
  YAML::Node after = YAML::Load(read_file(path));

  CHECK(after["current-context"].as<std::string>() == "kube-sandbox");
  for (const char* list : {"clusters", "users", "contexts"}) {
    CAPTURE(list);
    REQUIRE(after[list].size() == 3);
    CHECK(after[list][2]["name"].as<std::string>() == "kube-sandbox");
    // The other entries are unchanged, in their order, quoting included.
    CHECK(dump(after[list][0]) == dump(before[list][0]));
    CHECK(dump(after[list][1]) == dump(before[list][1]));
  }
  CHECK(after["clusters"][2]["cluster"]["server"].as<std::string>() == "https://127.0.0.1:6443");
  CHECK(after["contexts"][0]["context"]["namespace"].Tag() == "!");
  CHECK(after["users"][1]["user"]["exec"]["env"][0]["value"].Tag() == "!");

  // Top-level fields keep their order; current-context keeps its place.
  std::vector<std::string> keys;
  for (const auto& entry : after) {
    keys.push_back(entry.first.as<std::string>());
  }
  CHECK(keys == std::vector<std::string>{"apiVersion", "kind", "clusters", "contexts",
                                         "current-context", "preferences", "users",
                                         "x-tool-settings"});
  CHECK(dump(after["preferences"]) == dump(before["preferences"]));
  CHECK(dump(after["x-tool-settings"]) == dump(before["x-tool-settings"]));

  SECTION("merging again updates kube-sandbox in place") {
    REQUIRE(sandbox::merge_kubeconfig(path, sandbox::make_kubeconfig("https://127.0.0.1:7443", kCa,
                                                                     kCert, kKey)) == std::nullopt);
    YAML::Node again = YAML::Load(read_file(path));
    for (const char* list : {"clusters", "users", "contexts"}) {
      CAPTURE(list);
      CHECK(again[list].size() == 3);
    }
    CHECK(find_named(again["clusters"], "kube-sandbox")["cluster"]["server"].as<std::string>() ==
          "https://127.0.0.1:7443");
    CHECK(dump(again["users"]) == dump(after["users"]));
  }
}

TEST_CASE("merge_kubeconfig replaces an old kube-sandbox entry where it stands", "[kubeconfig]") {
  TempDir tmp("ks-kubeconfig-test");
  fs::path path = tmp.path() / "config";
  overwrite_file(path, R"(apiVersion: v1
kind: Config
clusters:
- name: kube-sandbox
  cluster: {server: "https://old:1"}
- name: other
  cluster: {server: "https://other:1"}
- name: kube-sandbox
  cluster: {server: "https://duplicate:1"}
current-context: other
)");
  REQUIRE(sandbox::merge_kubeconfig(
              path, sandbox::make_kubeconfig("https://new:2", kCa, kCert, kKey)) == std::nullopt);
  YAML::Node doc = YAML::Load(read_file(path));
  REQUIRE(doc["clusters"].size() == 2);
  CHECK(doc["clusters"][0]["name"].as<std::string>() == "kube-sandbox");
  CHECK(doc["clusters"][0]["cluster"]["server"].as<std::string>() == "https://new:2");
  CHECK(doc["clusters"][1]["name"].as<std::string>() == "other");
  CHECK(doc["users"].size() == 1);
  CHECK(doc["contexts"].size() == 1);
  CHECK(doc["current-context"].as<std::string>() == "kube-sandbox");
}

TEST_CASE("merge_kubeconfig creates a missing or empty kubeconfig", "[kubeconfig]") {
  TempDir tmp("ks-kubeconfig-test");
  fs::path path = tmp.path() / ".kube" / "config";
  std::string text = sandbox::make_kubeconfig("https://127.0.0.1:6443", kCa, kCert, kKey);

  SECTION("missing") {
    REQUIRE(sandbox::merge_kubeconfig(path, text) == std::nullopt);
    CHECK(read_file(path) == text);
    CHECK(mode_of(path) == 0600);
  }
  SECTION("empty") {
    fs::create_directory(tmp.path() / ".kube");
    overwrite_file(path, "");
    REQUIRE(sandbox::merge_kubeconfig(path, text) == std::nullopt);
    CHECK(dump(YAML::Load(read_file(path))["users"]) == dump(YAML::Load(text)["users"]));
  }
}

TEST_CASE("merge_kubeconfig refuses a file that is not a kubeconfig and leaves it alone",
          "[kubeconfig]") {
  auto [content, message] = GENERATE(table<std::string, std::string>({
      {"contexts: {a: b}\n", ": contexts: expected a list"},
      {"- a\n- b\n", ": expected a mapping at the top level"},
      {"clusters: [\n", ": yaml-cpp: error at line 2, column 1: end of sequence flow not found"},
  }));
  CAPTURE(content);
  TempDir tmp("ks-kubeconfig-test");
  fs::path path = tmp.path() / "config";
  overwrite_file(path, content);
  auto error =
      sandbox::merge_kubeconfig(path, sandbox::make_kubeconfig("https://h:1", kCa, kCert, kKey));
  CHECK(error == path.string() + message);
  CHECK(read_file(path) == content);
}
