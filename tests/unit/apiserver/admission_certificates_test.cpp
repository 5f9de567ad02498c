// The certificate admission plugins: CertificateApproval, CertificateSigning,
// CertificateSubjectRestriction and ClusterTrustBundleAttest, on a chain of their own over
// authorizers that allow or deny everything, and approval through RBAC with the whole server.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "admission_bench.h"
#include "authorization_fixture.h"
#include "certificate_request_pem.h"
#include "common/base64.h"

namespace {

using apiserver::admission::Operation;
using apiserver::authorization::Mode;
using apiserver::testing::AdmissionBench;
using apiserver::testing::Cluster;
using apiserver::testing::request_pem;
using nlohmann::json;

constexpr const char* kGroup = "certificates.k8s.io";
constexpr const char* kCsrs = "certificatesigningrequests";

json csr(const std::string& signer, const std::string& pem) {
  return {{"apiVersion", "certificates.k8s.io/v1"},
          {"kind", "CertificateSigningRequest"},
          {"metadata", {{"name", "req"}}},
          {"spec",
           {{"request", common::base64_encode(pem)},
            {"signerName", signer},
            {"usages", {"client auth"}}}}};
}

// The refusal's message of `pass` ("admit" or "validate") over `a`; "" when admitted.
std::string refusal(const apiserver::admission::Chain& chain, apiserver::admission::Attributes& a) {
  auto refused = chain.validate(a);
  return refused ? refused->message : std::string();
}

}  // namespace

TEST_CASE("CertificateApproval asks for approve on the signer the request had", "[admission]") {
  const Mode mode = GENERATE(Mode::AlwaysAllow, Mode::AlwaysDeny);
  CAPTURE(mode == Mode::AlwaysAllow);
  AdmissionBench bench(mode);
  auto chain = bench.chain({"CertificateApproval"});
  const json old = csr("example.com/signer", request_pem());
  json approved = old;
  approved["spec"]["signerName"] = "example.com/other";  // the stored signer counts
  approved["status"] = {{"conditions", {{{"type", "Approved"}, {"status", "True"}}}}};
  auto a = bench.attributes(Operation::Update, kGroup, kCsrs, &approved, &old, "approval");
  CHECK(refusal(*chain, a) ==
        (mode == Mode::AlwaysAllow
             ? ""
             : "certificatesigningrequests.certificates.k8s.io \"req\" is forbidden: user not "
               "permitted to approve requests with signerName \"example.com/signer\""));
  // Not through /approval, or not on the chain: nothing asked.
  auto main = bench.attributes(Operation::Update, kGroup, kCsrs, &approved, &old);
  CHECK(refusal(*chain, main) == "");
  CHECK(refusal(*bench.chain({}), a) == "");
}

TEST_CASE("CertificateSigning asks for sign when /status changes the certificate or conditions",
          "[admission]") {
  AdmissionBench bench(Mode::AlwaysDeny);
  auto chain = bench.chain({"CertificateSigning"});
  json old = csr("example.com/signer", request_pem());
  old["status"] = {{"conditions", {{{"type", "Approved"}, {"status", "True"}}}}};
  const std::string kRefused =
      "certificatesigningrequests.certificates.k8s.io \"req\" is forbidden: user not permitted to "
      "sign requests with signerName \"example.com/signer\"";
  json issued = old;
  issued["status"]["certificate"] = "Y2VydA==";
  auto a = bench.attributes(Operation::Update, kGroup, kCsrs, &issued, &old, "status");
  CHECK(refusal(*chain, a) == kRefused);
  json failed = old;
  failed["status"]["conditions"].push_back({{"type", "Failed"}, {"status", "True"}});
  auto b = bench.attributes(Operation::Update, kGroup, kCsrs, &failed, &old, "status");
  CHECK(refusal(*chain, b) == kRefused);
  json same = old;
  same["metadata"]["labels"] = {{"a", "b"}};
  auto c = bench.attributes(Operation::Update, kGroup, kCsrs, &same, &old, "status");
  CHECK(refusal(*chain, c) == "");
  CHECK(refusal(*bench.chain({}), a) == "");
  AdmissionBench allowing(Mode::AlwaysAllow);
  auto d = allowing.attributes(Operation::Update, kGroup, kCsrs, &issued, &old, "status");
  CHECK(refusal(*allowing.chain({"CertificateSigning"}), d) == "");
}

TEST_CASE(
    "CertificateSubjectRestriction keeps system:masters from the kube-apiserver-client "
    "signer",
    "[admission]") {
  AdmissionBench bench;
  auto chain = bench.chain({"CertificateSubjectRestriction"});
  json masters = csr("kubernetes.io/kube-apiserver-client", request_pem("system:masters"));
  auto a = bench.attributes(Operation::Create, kGroup, kCsrs, &masters);
  CHECK(refusal(*chain, a) ==
        "certificatesigningrequests.certificates.k8s.io \"req\" is forbidden: use of "
        "kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed");
  CHECK(refusal(*bench.chain({}), a) == "");
  json other = csr("example.com/signer", request_pem("system:masters"));
  auto b = bench.attributes(Operation::Create, kGroup, kCsrs, &other);
  CHECK(refusal(*chain, b) == "");
  json devs = csr("kubernetes.io/kube-apiserver-client", request_pem("devs"));
  auto c = bench.attributes(Operation::Create, kGroup, kCsrs, &devs);
  CHECK(refusal(*chain, c) == "");
}

TEST_CASE("ClusterTrustBundleAttest asks for attest on a bundle's signer", "[admission]") {
  AdmissionBench bench(Mode::AlwaysDeny, "certificates.k8s.io/v1alpha1=true");
  auto chain = bench.chain({"ClusterTrustBundleAttest"});
  const std::string ctbs = "clustertrustbundles";
  json bundle = {{"apiVersion", "certificates.k8s.io/v1alpha1"},
                 {"kind", "ClusterTrustBundle"},
                 {"metadata", {{"name", "example.com:signer:roots"}}},
                 {"spec", {{"signerName", "example.com/signer"}, {"trustBundle", "PEM"}}}};
  auto create = bench.attributes(Operation::Create, kGroup, ctbs, &bundle);
  CHECK(refusal(*chain, create) ==
        "clustertrustbundles.certificates.k8s.io \"example.com:signer:roots\" is forbidden: user "
        "not permitted to attest for signerName \"example.com/signer\"");
  CHECK(refusal(*bench.chain({}), create) == "");
  // An update that only touches what the garbage collector writes needs nothing.
  json finalized = bundle;
  finalized["metadata"]["finalizers"] = {"example.com/keep"};
  auto gc = bench.attributes(Operation::Update, kGroup, ctbs, &finalized, &bundle);
  CHECK(refusal(*chain, gc) == "");
  json changed = bundle;
  changed["spec"]["trustBundle"] = "OTHER";
  auto update = bench.attributes(Operation::Update, kGroup, ctbs, &changed, &bundle);
  CHECK_FALSE(refusal(*chain, update).empty());
  json unsigned_bundle = {{"metadata", {{"name", "plain"}}}, {"spec", {{"trustBundle", "PEM"}}}};
  auto plain = bench.attributes(Operation::Create, kGroup, ctbs, &unsigned_bundle);
  CHECK(refusal(*chain, plain) == "");
  AdmissionBench allowing(Mode::AlwaysAllow, "certificates.k8s.io/v1alpha1=true");
  auto allowed = allowing.attributes(Operation::Create, kGroup, ctbs, &bundle);
  CHECK(refusal(*allowing.chain({"ClusterTrustBundleAttest"}), allowed) == "");
}

TEST_CASE("approving through the API needs approve on the signer, by name or by domain",
          "[admission]") {
  Cluster cluster;
  const std::string csrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
  REQUIRE(cluster.admin("POST", csrs, csr("example.com/signer", request_pem())).status == 201);
  auto cluster_role = [](const std::string& name, json rules) {
    return json{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                {"kind", "ClusterRole"},
                {"metadata", {{"name", name}}},
                {"rules", std::move(rules)}};
  };
  auto cluster_binding = [](const std::string& name, const std::string& role) {
    return json{
        {"apiVersion", "rbac.authorization.k8s.io/v1"},
        {"kind", "ClusterRoleBinding"},
        {"metadata", {{"name", name}}},
        {"roleRef",
         {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role}}},
        {"subjects",
         json::array(
             {{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "User"}, {"name", "alice"}}})}};
  };
  const std::string roles = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
  const std::string bindings = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
  REQUIRE(
      cluster
          .admin("POST", roles,
                 cluster_role("approver",
                              json::array({{{"apiGroups", {kGroup}},
                                            {"resources", {"certificatesigningrequests/approval"}},
                                            {"verbs", {"update"}}}})))
          .status == 201);
  REQUIRE(cluster.admin("POST", bindings, cluster_binding("approver", "approver")).status == 201);
  json approval = cluster.admin("GET", csrs + "/req").body;
  approval["status"] = {{"conditions", {{{"type", "Approved"}, {"status", "True"}}}}};
  auto refused = cluster.call("alice", "PUT", csrs + "/req/approval", approval);
  CHECK(refused.status == 403);
  CHECK(refused.body["message"] ==
        "certificatesigningrequests.certificates.k8s.io \"req\" is forbidden: user not permitted "
        "to approve requests with signerName \"example.com/signer\"");

  REQUIRE(
      cluster
          .admin("POST", roles,
                 cluster_role("signer-approver", json::array({{{"apiGroups", {kGroup}},
                                                               {"resources", {"signers"}},
                                                               {"resourceNames", {"example.com/*"}},
                                                               {"verbs", {"approve"}}}})))
          .status == 201);
  REQUIRE(cluster.admin("POST", bindings, cluster_binding("signer-approver", "signer-approver"))
              .status == 201);
  auto approved = cluster.call("alice", "PUT", csrs + "/req/approval", approval);
  CHECK(approved.status == 200);
  CHECK(approved.body["status"]["conditions"][0]["type"] == "Approved");
}
