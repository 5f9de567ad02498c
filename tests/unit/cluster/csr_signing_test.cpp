#include "certificates/csr_signing.h"

#include <catch2/catch.hpp>

using nlohmann::json;

TEST_CASE("the kube-apiserver-client signer accepts client usages only", "[csr]") {
  struct Row {
    std::vector<std::string> usages;
    std::optional<std::string> problem;
  };
  auto row = GENERATE(
      Row{{"client auth"}, std::nullopt},
      Row{{"digital signature", "key encipherment", "client auth"}, std::nullopt},
      Row{{"key encipherment", "client auth", "digital signature"}, std::nullopt},
      Row{{"client auth", "server auth"}, "invalid usage for client certificate: server auth"},
      Row{{"signing", "client auth"}, "invalid usage for client certificate: signing"},
      Row{{"digital signature"}, "missing required usage for client certificate: client auth"},
      Row{{}, "missing required usage for client certificate: client auth"});
  CAPTURE(row.usages);
  CHECK(cluster::client_usages_problem(row.usages) == row.problem);
}

TEST_CASE("a certificate lasts what the request asks within 10 minutes and the limit", "[csr]") {
  using std::chrono::seconds;
  const seconds year(365 * 24 * 3600);
  struct Row {
    std::optional<int64_t> requested;
    seconds expected;
  };
  auto row = GENERATE_COPY(Row{std::nullopt, year}, Row{3600, seconds(3600)},
                           Row{600, seconds(600)}, Row{599, seconds(600)}, Row{1, seconds(600)},
                           Row{year.count() + 1, year}, Row{year.count(), year});
  CAPTURE(row.requested.value_or(-1));
  CHECK(cluster::signing_duration(year, row.requested) == row.expected);
  CHECK(cluster::signing_duration(seconds(3600), std::optional<int64_t>(7200)) == seconds(3600));
}

TEST_CASE("only approved, unfailed, unsigned kube-apiserver-client requests are signed", "[csr]") {
  json csr = {{"spec", {{"signerName", "kubernetes.io/kube-apiserver-client"}}},
              {"status", {{"conditions", json::array()}}}};
  json approved = {{"type", "Approved"}, {"status", "True"}};
  SECTION("pending") {
    CHECK_FALSE(cluster::wants_signing(csr));
  }
  SECTION("approved") {
    csr["status"]["conditions"].push_back(approved);
    CHECK(cluster::wants_signing(csr));
    SECTION("for another signer") {
      for (const char* signer :
           {"kubernetes.io/legacy-unknown", "kubernetes.io/kubelet-serving", "example.com/mine"}) {
        csr["spec"]["signerName"] = signer;
        CHECK_FALSE(cluster::wants_signing(csr));
      }
    }
    SECTION("already signed") {
      csr["status"]["certificate"] = "LS0t";
      CHECK_FALSE(cluster::wants_signing(csr));
    }
    SECTION("failed") {
      csr["status"]["conditions"].push_back(
          cluster::failed_condition("no", "2026-01-01T00:00:00Z"));
      CHECK_FALSE(cluster::wants_signing(csr));
    }
  }
  SECTION("denied") {
    csr["status"]["conditions"].push_back({{"type", "Denied"}, {"status", "True"}});
    CHECK_FALSE(cluster::wants_signing(csr));
  }
}

TEST_CASE("a request the signer refuses gets upstream's Failed condition", "[csr]") {
  CHECK(cluster::failed_condition("invalid usage for client certificate: server auth",
                                  "2026-01-01T00:00:00Z") ==
        json{{"type", "Failed"},
             {"status", "True"},
             {"reason", "SignerValidationFailure"},
             {"message", "invalid usage for client certificate: server auth"},
             {"lastUpdateTime", "2026-01-01T00:00:00Z"}});
}
