// The API's error vocabulary (errors/status): metav1.Status as kube-apiserver writes it.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "errors/status.h"

namespace errors = apiserver::errors;

TEST_CASE("a Status is written in Go's field order, empty fields left out", "[status]") {
  CHECK(errors::bad_request("no").json() ==
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"no",)"
        R"("reason":"BadRequest","code":400})");
  // An unknown reason is left out; empty details are {}.
  CHECK(errors::failure(500, "", "broke", errors::Details{}).json() ==
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"broke",)"
        R"("details":{},"code":500})");
  auto details = errors::object_details("cm", "", "configmaps", "u-1");
  details.causes.push_back({"FieldValueInvalid", "Invalid value", "data"});
  details.causes.push_back({"", "only a message", ""});
  details.retry_after_seconds = 3;
  CHECK(errors::failure(422, "Invalid", "bad", details).json() ==
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"bad",)"
        R"("reason":"Invalid","details":{"name":"cm","kind":"configmaps","uid":"u-1","causes":[)"
        R"({"reason":"FieldValueInvalid","message":"Invalid value","field":"data"},)"
        R"({"message":"only a message"}],"retryAfterSeconds":3},"code":422})");
}

TEST_CASE("an internal error carries its detail as the one cause", "[status]") {
  auto status = errors::internal_error("it broke");
  CHECK(status.code == 500);
  CHECK(status.message == "Internal error occurred: it broke");
  REQUIRE(status.details);
  REQUIRE(status.details->causes.size() == 1);
  CHECK(status.details->causes[0].message == "it broke");
}

TEST_CASE("a Status survives its JSON, and bad bytes are replaced, not thrown over", "[status]") {
  auto details = errors::object_details("x", "apps", "deployments");
  details.causes.push_back({"FieldValueRequired", "Required value", "spec"});
  auto original = errors::failure(409, "Conflict", "changed", details);
  auto back = errors::Status::from_json(nlohmann::json::parse(original.json()));
  CHECK(back.json() == original.json());

  auto response = errors::failure(400, "BadRequest", "name \xff\xfe").response();
  CHECK(response.status == 400);
  CHECK(response.body.find("\"message\":\"name \xEF\xBF\xBD\xEF\xBF\xBD\"") != std::string::npos);

  errors::Status success;
  success.code = 0;
  success.status = "Success";
  success.details = errors::object_details("gone", "", "pods", "u");
  auto ok = success.response();
  CHECK(ok.status == 200);
  CHECK(ok.body == R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success",)"
                   R"("details":{"name":"gone","kind":"pods","uid":"u"}})");
}
