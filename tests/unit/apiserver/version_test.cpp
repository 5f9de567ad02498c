#include <catch2/catch.hpp>

#include "apiserver/version.h"

TEST_CASE("the API server reports Kubernetes v1.32", "[apiserver][version]") {
  const auto& v = apiserver::version_info();
  CHECK(v.major == "1");
  CHECK(v.minor == "32");
  CHECK(apiserver::api_version_line() == "v1.32");
  CHECK(v.git_version.rfind("v1.32.", 0) == 0);
  CHECK(v.git_version.find("-sandbox.") != std::string::npos);
}
