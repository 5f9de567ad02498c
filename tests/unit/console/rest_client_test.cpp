#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "console/client/rest_client.h"

namespace fs = std::filesystem;
using console::client::load_kubeconfig;

namespace {

// A scratch directory with files, removed at the end of the test.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("ks-kubeconfig-" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

const char* kConfig = R"(apiVersion: v1
kind: Config
current-context: sandbox
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: Q0EgUEVN
- name: remote
  cluster:
    server: https://[::1]:8443
    certificate-authority: ca.pem
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
- name: robot
  user:
    tokenFile: token.txt
contexts:
- name: sandbox
  context: {cluster: local, user: admin}
- name: other
  context: {cluster: remote, user: robot, namespace: team-a}
- name: broken
  context: {cluster: nowhere, user: admin}
)";

}  // namespace

TEST_CASE("kubeconfig contexts resolve to what a connection needs", "[console][client]") {
  Scratch scratch;
  std::string path = scratch.write("config", kConfig);
  scratch.write("ca.pem", "FILE CA");
  scratch.write("token.txt", "s3cret\n");

  auto current = load_kubeconfig(path, "");
  REQUIRE(current.ok());
  CHECK(current->context == "sandbox");
  CHECK(current->server == "https://127.0.0.1:6443");
  CHECK(current->ca_pem == "CA PEM");
  CHECK(current->client_cert_pem == "CERT");
  CHECK(current->client_key_pem == "KEY");
  CHECK(current->token.empty());
  CHECK(current->namespace_ == "default");
  CHECK_FALSE(current->insecure);

  auto other = load_kubeconfig(path, "other");
  REQUIRE(other.ok());
  CHECK(other->server == "https://[::1]:8443");
  CHECK(other->ca_pem == "FILE CA");  // relative to the kubeconfig's directory
  CHECK(other->insecure);
  CHECK(other->token == "s3cret");
  CHECK(other->namespace_ == "team-a");

  auto missing = load_kubeconfig(path, "missing");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().find("no context \"missing\"") != std::string::npos);
  auto broken = load_kubeconfig(path, "broken");
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().find("no cluster \"nowhere\"") != std::string::npos);
  auto absent = load_kubeconfig((scratch.dir / "absent").string(), "");
  REQUIRE_FALSE(absent.ok());
  CHECK(absent.error().find("cannot be read") != std::string::npos);

  std::string bad = scratch.write("bad", std::string(kConfig) + "  \n- [\n");
  CHECK_FALSE(load_kubeconfig(bad, "").ok());
  std::string plain_http = scratch.write(
      "http", "current-context: c\nclusters: [{name: x, cluster: {server: 'http://h:1'}}]\n"
              "contexts: [{name: c, context: {cluster: x, user: u}}]\n");
  auto http = load_kubeconfig(plain_http, "");
  REQUIRE_FALSE(http.ok());
  CHECK(http.error().find("not an https URL") != std::string::npos);
}

TEST_CASE("a request to an unreachable server fails with a clear error", "[console][client]") {
  console::client::ClusterAccess access;
  access.server = "https://127.0.0.1:1";  // nothing listens on port 1
  access.insecure = true;
  console::client::RestClient client(access, {.timeout = std::chrono::seconds(5)});
  auto response = client.request("GET", "/version", "", "");
  REQUIRE_FALSE(response.ok());
  CHECK(response.error().find("connecting to https://127.0.0.1:1") != std::string::npos);
}

TEST_CASE("kubeconfigs of the wrong shape are errors, not crashes", "[console][client]") {
  Scratch scratch;
  for (const char* text : {"just a string", "[1, 2]", "contexts: 5\ncurrent-context: c\n",
                           "current-context: c\ncontexts: [{name: c, context: {cluster: [1]}}]\n"}) {
    CAPTURE(text);
    auto loaded = load_kubeconfig(scratch.write("shape", text), "");
    REQUIRE_FALSE(loaded.ok());
    CHECK_FALSE(loaded.error().empty());
  }
}
