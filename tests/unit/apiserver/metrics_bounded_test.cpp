// Metrics labels come from the registry, never from the path: however many distinct paths,
// methods and dryRun values clients send, the number of series stays bounded.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <sstream>
#include <string>

#include "apiserver/apiserver.h"
#include "store/store.h"

namespace {

size_t count_series(const std::string& metrics) {
  std::istringstream lines(metrics);
  size_t n = 0;
  for (std::string line; std::getline(lines, line);) {
    n += line.rfind("apiserver_request_total{", 0) == 0 ? 1 : 0;
  }
  return n;
}

}  // namespace

TEST_CASE("10,000 distinct random paths add a bounded number of metric series",
          "[apiserver][metrics]") {
  store::Options options;
  options.durability = store::Durability::Ephemeral;
  auto db = std::move(store::Store::open(options)).value();
  apiserver::ApiServerConfig config;
  config.tokens["t0ken"] = {"admin", {"system:masters"}};
  apiserver::ApiServer api(*db, config);
  api.bootstrap();
  api.set_ready(true);
  auto scrape = [&] {
    apiserver::http::Request r;
    r.method = "GET";
    r.path = r.target = "/metrics";
    r.headers["Authorization"] = "Bearer t0ken";
    return api.handle(r).body;
  };
  const size_t before = count_series(scrape());

  std::mt19937 random(14);
  const std::string alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-.";
  auto word = [&] {
    std::string w = "zq";  // a marker no label may ever carry
    for (int i = 0; i < 10; ++i) {
      w += alphabet[random() % alphabet.size()];
    }
    return w;
  };
  const std::vector<std::string> methods = {"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"};
  for (int i = 0; i < 10000; ++i) {
    std::string path;
    switch (i % 5) {
      case 0:
        path = "/" + word();
        break;
      case 1:
        path = "/api/v1/" + word();
        break;
      case 2:
        path = "/apis/" + word() + "/v1/" + word();
        break;
      case 3:
        path = "/api/v1/namespaces/" + word() + "/configmaps/" + word();
        break;
      default:
        path = "/api/v1/namespaces/default/configmaps/" + word() + "/" + word();
        break;
    }
    apiserver::http::Request r;
    r.method = i % 7 == 0 ? word() : methods[random() % methods.size()];
    r.path = path;
    r.target = path + "?dryRun=" + word();
    r.query["dryRun"] = {word()};
    r.headers["Authorization"] = "Bearer t0ken";
    api.handle(r);
  }
  const std::string after = scrape();
  CHECK(after.find("zq") == std::string::npos);
  const size_t added = count_series(after) - before;
  CAPTURE(added);
  CHECK(added <= 20);
  CHECK(after.find("resource=\"configmaps\",scope=\"resource\",subresource=\"\",verb=\"other\"") !=
        std::string::npos);
}
