// CertificateSigningRequests through the API: v1 validation, the requester stamped on create,
// and what the main resource, /approval and /status may each change.
#include <catch2/catch.hpp>

#include "certificate_request_pem.h"
#include "common/base64.h"
#include "test_api.h"

using apiserver::testing::request_pem;
using nlohmann::json;

namespace {

const char* const kCsrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests";

json csr(const std::string& name, const std::string& pem) {
  return {{"apiVersion", "certificates.k8s.io/v1"},
          {"kind", "CertificateSigningRequest"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"request", common::base64_encode(pem)},
            {"signerName", "kubernetes.io/kube-apiserver-client"},
            {"usages", {"client auth"}},
            {"username", "mallory"},
            {"groups", {"system:masters"}}}},
          {"status", {{"conditions", {{{"type", "Approved"}, {"status", "True"}}}}}}};
}

}  // namespace

TEST_CASE("a CertificateSigningRequest is validated as v1 and names who asked for it", "[csr]") {
  apiserver::testing::Api api;
  SECTION("a valid one keeps no status and gets the requester") {
    auto created = api.call("POST", kCsrs, csr("alice", request_pem()));
    REQUIRE(created.status == 201);
    CHECK(created.body["spec"]["username"] == "admin");
    CHECK(created.body["spec"]["groups"] == json({"system:masters", "system:authenticated"}));
    CHECK_FALSE(created.body.contains("status"));
  }
  SECTION("one asking this signer for system:masters is forbidden") {
    auto refused = api.call("POST", kCsrs, csr("eve", request_pem("system:masters")));
    REQUIRE(refused.status == 403);
    CHECK(refused.body["message"] ==
          "certificatesigningrequests.certificates.k8s.io \"eve\" is forbidden: use of "
          "kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed");
    CHECK(refused.body["details"] == json{{"name", "eve"},
                                          {"group", "certificates.k8s.io"},
                                          {"kind", "certificatesigningrequests"}});
    json other = csr("eve", request_pem("system:masters"));
    other["spec"]["signerName"] = "example.com/anything";
    CHECK(api.call("POST", kCsrs, other).status == 201);
  }
  SECTION("an invalid one is refused with every cause") {
    json bad = csr("bad", "hi\n");
    bad["spec"]["signerName"] = "kubernetes.io/legacy-unknown";
    bad["spec"]["usages"] = {"client auth", "bogus", "client auth"};
    bad["spec"]["expirationSeconds"] = 599;
    auto refused = api.call("POST", kCsrs, bad);
    REQUIRE(refused.status == 422);
    CHECK(refused.body["message"] ==
          "CertificateSigningRequest.certificates.k8s.io \"bad\" is invalid: [spec.request: "
          "Invalid value: []byte{0x68, 0x69, 0xa}: PEM block type must be CERTIFICATE REQUEST, "
          "spec.usages[1]: Unsupported value: \"bogus\": supported values: \"any\", \"cert "
          "sign\", \"client auth\", \"code signing\", \"content commitment\", \"crl sign\", "
          "\"data encipherment\", \"decipher only\", \"digital signature\", \"email "
          "protection\", \"encipher only\", \"ipsec end system\", \"ipsec tunnel\", \"ipsec "
          "user\", \"key agreement\", \"key encipherment\", \"microsoft sgc\", \"netscape "
          "sgc\", \"ocsp signing\", \"s/mime\", \"server auth\", \"signing\", \"timestamping\", "
          "spec.usages[2]: Duplicate value: \"client auth\", spec.signerName: Invalid value: "
          "\"kubernetes.io/legacy-unknown\": the legacy signerName is not allowed via this API "
          "version, spec.expirationSeconds: Invalid value: 599: may not specify a duration less "
          "than 600 seconds (10 minutes)]");
  }
}

TEST_CASE("approval changes a request's conditions and status keeps them", "[csr]") {
  apiserver::testing::Api api;
  auto created = api.call("POST", kCsrs, csr("alice", request_pem()));
  REQUIRE(created.status == 201);
  const std::string target = std::string(kCsrs) + "/alice";
  json object = created.body;
  object["spec"]["username"] = "someone-else";
  object["status"] = {
      {"conditions", {{{"type", "Approved"}, {"reason", "KubectlApprove"}, {"message", "ok"}}}}};

  SECTION("/approval sets the conditions, defaulted and stamped, and nothing else") {
    auto approved = api.call("PUT", target + "/approval", object);
    REQUIRE(approved.status == 200);
    CHECK(approved.body["spec"]["username"] == "admin");
    const json& condition = approved.body["status"]["conditions"][0];
    CHECK(condition["status"] == "True");
    CHECK(condition["lastUpdateTime"].is_string());
    CHECK(condition["lastTransitionTime"] == condition["lastUpdateTime"]);

    SECTION("/status cannot take Approved away, nor change the spec") {
      json update = approved.body;
      update["spec"]["usages"] = {"server auth"};
      update["status"] = {{"certificate", common::base64_encode("not a certificate")}};
      auto refused = api.call("PUT", target + "/status", update);
      REQUIRE(refused.status == 422);
      CHECK(refused.body["message"] ==
            "CertificateSigningRequest.certificates.k8s.io \"alice\" is invalid: "
            "status.certificate: Invalid value: \"<certificate data>\": must contain at least "
            "one CERTIFICATE PEM block");
      update["status"] = {{"conditions", json::array()}};
      auto kept = api.call("PUT", target + "/status", update);
      REQUIRE(kept.status == 200);
      CHECK(kept.body["status"]["conditions"].size() == 1);
      CHECK(kept.body["status"]["conditions"][0]["type"] == "Approved");
      CHECK(kept.body["spec"]["usages"] == json({"client auth"}));

      json issued = kept.body;
      issued["status"]["certificate"] =
          common::base64_encode("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
      auto first = api.call("PUT", target + "/status", issued);
      REQUIRE(first.status == 200);
      issued = first.body;
      issued["status"]["certificate"] =
          common::base64_encode("-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n");
      auto second = api.call("PUT", target + "/status", issued);
      REQUIRE(second.status == 422);
      CHECK(second.body["message"] ==
            "CertificateSigningRequest.certificates.k8s.io \"alice\" is invalid: "
            "status.certificate: Forbidden: updates may not modify existing certificate content");
    }
  }
  SECTION("Approved and Denied together are refused") {
    object["status"]["conditions"].push_back({{"type", "Denied"}});
    auto refused = api.call("PUT", target + "/approval", object);
    REQUIRE(refused.status == 422);
    CHECK(refused.body["message"] ==
          "CertificateSigningRequest.certificates.k8s.io \"alice\" is invalid: "
          "status.conditions: Invalid value: \"Denied\": Approved and Denied conditions are "
          "mutually exclusive");
  }
  SECTION("the main resource changes neither spec nor status") {
    object["metadata"]["labels"] = {{"team", "devs"}};
    auto updated = api.call("PUT", target, object);
    REQUIRE(updated.status == 200);
    CHECK(updated.body["metadata"]["labels"]["team"] == "devs");
    CHECK(updated.body["spec"]["username"] == "admin");
    CHECK_FALSE(updated.body.contains("status"));
  }
}
