#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"
#include "cli_run.h"

using cli_test::run;

TEST_CASE("an unknown flag is a usage error with exit code 2", "[cli]") {
  auto r = run({"--bogus"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("kube-sandbox: unknown flag: --bogus\n", 0) == 0);
  CHECK(r.err.find("Usage:") != std::string::npos);
}

TEST_CASE("an unknown command is a usage error with exit code 2", "[cli]") {
  auto r = run({"frobnicate"});
  CHECK(r.code == 2);
  CHECK(r.err.rfind("kube-sandbox: unknown command \"frobnicate\"\n", 0) == 0);
}

TEST_CASE("a command's unknown flag names the command", "[cli]") {
  auto r = run({"version", "--nope"});
  CHECK(r.code == 2);
  CHECK(r.err.rfind("kube-sandbox version: unknown flag: --nope\n", 0) == 0);
}

TEST_CASE("help lists every command", "[cli]") {
  auto r = run({"--help"});
  CHECK(r.code == 0);
  for (const char* name :
       {"serve", "console", "kubeconfig", "store", "etcd", "kube-apiserver", "seed", "version"}) {
    CAPTURE(name);
    CHECK(r.out.find(std::string("\n  ") + name + " ") != std::string::npos);
  }
}

TEST_CASE("version prints the served Kubernetes API version", "[cli]") {
  auto text = run({"version"});
  CHECK(text.code == 0);
  CHECK(text.out.find("Kubernetes API v1.32") != std::string::npos);

  auto json = run({"version", "-o", "json"});
  REQUIRE(json.code == 0);
  auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["kubernetesVersion"] == "v1.32");
  CHECK(doc["serverVersion"]["minor"] == "32");

  auto bad = run({"version", "-o", "yaml"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("unknown output format \"yaml\"") != std::string::npos);
}

TEST_CASE("etcd refuses command lines etcd would run but a single member cannot", "[cli]") {
  auto cluster =
      run({"etcd", "--name", "a", "--initial-cluster", "a=http://x:2380,b=http://y:2380"});
  CHECK(cluster.code == 2);
  CHECK(cluster.err.find("runs a single member") != std::string::npos);
  auto urls = run({"etcd", "--listen-client-urls", "http://127.0.0.1:1,http://127.0.0.1:2"});
  CHECK(urls.code == 2);
  auto scheme = run({"etcd", "--listen-client-urls", "unix:///tmp/x"});
  CHECK(scheme.code == 2);
  CHECK(scheme.err.find("URL must start with http:// or https://") != std::string::npos);
  auto tls = run({"etcd", "--listen-client-urls", "https://127.0.0.1:0"});
  CHECK(tls.code == 2);
  CHECK(tls.err.find("needs --cert-file and --key-file") != std::string::npos);
}

TEST_CASE("serve refuses an --etcd-listen that is not a client URL", "[cli]") {
  auto r = run({"serve", "--ephemeral", "--etcd-listen", "127.0.0.1:2379"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--etcd-listen 127.0.0.1:2379: URL must start with http:// or https://") !=
        std::string::npos);
}

TEST_CASE("serve refuses etcd cluster flags it cannot honour", "[cli]") {
  auto prefix = run(
      {"serve", "--ephemeral", "--etcd-servers", "http://127.0.0.1:1", "--etcd-prefix", "/other"});
  CHECK(prefix.code == 2);
  CHECK(prefix.err.find("kube-sandbox keeps objects under /registry") != std::string::npos);
  auto alone = run({"serve", "--ephemeral", "--etcd-cafile", "ca.crt"});
  CHECK(alone.code == 2);
  CHECK(alone.err.find("--etcd-cafile needs --etcd-servers") != std::string::npos);
  auto half = run(
      {"serve", "--ephemeral", "--etcd-servers", "http://127.0.0.1:1", "--etcd-certfile", "c.crt"});
  CHECK(half.code == 2);
  CHECK(half.err.find("--etcd-certfile and --etcd-keyfile go together") != std::string::npos);
}

TEST_CASE("kube-apiserver takes kube-apiserver's flags and wants an etcd", "[cli]") {
  auto help = run({"kube-apiserver", "--help"});
  CHECK(help.code == 0);
  // envtest passes --insecure-port only to a kube-apiserver whose help names it
  CHECK(help.out.find("insecure-port") == std::string::npos);
  for (const char* flag : {"--cert-dir", "--etcd-servers", "--service-account-signing-key-file",
                           "--service-cluster-ip-range", "--allow-privileged", "--client-ca-file",
                           "--disable-admission-plugins", "--authorization-mode"}) {
    CAPTURE(flag);
    CHECK(help.out.find(flag) != std::string::npos);
  }
  // serve's own flags are not kube-apiserver's
  for (const char* flag : {"--data-dir", "--nodes", "--headless", "--fixtures", "--etcd-listen"}) {
    CAPTURE(flag);
    CHECK(help.out.find(flag) == std::string::npos);
    CHECK(run({"kube-apiserver", flag}).code == 2);
  }
  auto no_etcd = run({"kube-apiserver", "--secure-port=0"});
  CHECK(no_etcd.code == 2);
  CHECK(no_etcd.err.rfind("kube-sandbox kube-apiserver: --etcd-servers must be specified\n", 0) ==
        0);
  auto range = run({"kube-apiserver", "--etcd-servers=http://127.0.0.1:1",
                    "--service-cluster-ip-range=10.0.0.0/8"});
  CHECK(range.code == 2);
  CHECK(range.err.rfind("kube-sandbox kube-apiserver: specified --service-cluster-ip-range is too "
                        "large; for 32-bit addresses, the mask must be >= 12\n",
                        0) == 0);
}

TEST_CASE("serve checks --service-cluster-ip-range and --controllers' API server names", "[cli]") {
  auto range = run({"serve", "--ephemeral", "--service-cluster-ip-range", "10.0.0.0"});
  CHECK(range.code == 2);
  CHECK(range.err.find("--service-cluster-ip-range 10.0.0.0 is not a valid IPv4 CIDR") !=
        std::string::npos);
  auto unknown = run({"serve", "--ephemeral", "--controllers", "namespace,-bogus"});
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("\"bogus\" is not in the list of known controllers") != std::string::npos);
}
