// Named snapshots: the files (apiserver/snapshots.h) and the /admin/snapshots endpoint, driven
// through ApiServer::handle as the HTTPS layer would.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>

#include "apiserver/apiserver.h"
#include "apiserver/snapshots.h"
#include "storage/watch_cache.h"
#include "store/store.h"
#include "test_request.h"
#include "watch_events.h"

using apiserver::testing::EventReader;
using apiserver::testing::make_request;
using nlohmann::json;
namespace snapshots = apiserver::snapshots;

namespace {

class TempDir {
 public:
  TempDir() {
    std::random_device random;
    path_ = std::filesystem::temp_directory_path() /
            ("ks-snapshots-test-" + std::to_string(random()) + std::to_string(random()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::unique_ptr<store::Store> ephemeral_store() {
  store::Options options;
  options.durability = store::Durability::Ephemeral;
  auto opened = store::Store::open(options);
  REQUIRE(opened.is_ok());
  return std::move(opened).value();
}

// An API server over an ephemeral store that keeps its snapshots in a temporary folder. Token
// "admin" is in system:masters, token "dev" is not.
class Api {
 public:
  Api() : store_(ephemeral_store()) {
    apiserver::ApiServerConfig config;
    config.tokens["admin"] = {"admin", {"system:masters"}};
    config.tokens["dev"] = {"dev", {"developers"}};
    config.snapshots_dir = dir_.path() / "snapshots";
    api_ = std::make_unique<apiserver::ApiServer>(*store_, config);
    api_->bootstrap();
    api_->set_ready(true);
  }

  struct Reply {
    int status;
    json body;
  };

  Reply call(const std::string& method, const std::string& target, const json& body = nullptr,
             const std::string& token = "admin") {
    auto request = make_request(method, target, body, token);
    auto response = api_->handle(request);
    return {response.status, json::parse(response.body, nullptr, false)};
  }

  std::shared_ptr<apiserver::http::ChunkStream> watch(const std::string& target) {
    auto request = make_request("GET", target, nullptr, "admin");
    auto response = api_->handle(request);
    REQUIRE(response.status == 200);
    REQUIRE(response.stream);
    return response.stream;
  }

  // Waits (bounded) until the controllers are done with what the last requests started.
  void settle() {
    REQUIRE(api_->wait_controllers_idle(std::chrono::seconds(5), std::chrono::seconds(20)));
  }

  store::Store& db() { return *store_; }
  std::filesystem::path snapshots_dir() const { return dir_.path() / "snapshots"; }

 private:
  TempDir dir_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<apiserver::ApiServer> api_;
};

json configmap(const std::string& name, const std::string& value) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}}},
          {"data", {{"k", value}}}};
}

const std::string kConfigMaps = "/api/v1/namespaces/default/configmaps";

// name -> data.k of the ConfigMaps in default, and the list's resourceVersion.
std::map<std::string, std::string> configmaps(Api& api, int64_t* list_rv = nullptr) {
  auto list = api.call("GET", kConfigMaps);
  REQUIRE(list.status == 200);
  std::map<std::string, std::string> out;
  for (const auto& item : list.body["items"]) {
    out[item["metadata"]["name"]] = item.value("/data/k"_json_pointer, "");
  }
  if (list_rv != nullptr) {
    *list_rv = std::stoll(list.body["metadata"]["resourceVersion"].get<std::string>());
  }
  return out;
}

}  // namespace

TEST_CASE("snapshot names follow [a-z0-9][a-z0-9._-]{0,62}", "[snapshots]") {
  for (const char* good : {"a", "base", "0", "after-seed.v2_1", "a.b-c_d"}) {
    CAPTURE(good);
    CHECK(snapshots::valid_name(good));
  }
  for (const char* bad : {"", "-a", ".a", "_a", "Base", "a/b", "a b", "..", "a\n"}) {
    CAPTURE(bad);
    CHECK_FALSE(snapshots::valid_name(bad));
  }
  CHECK(snapshots::valid_name(std::string(63, 'a')));
  CHECK_FALSE(snapshots::valid_name(std::string(64, 'a')));
  CHECK(snapshots::invalid_name_message("A") ==
        "invalid snapshot name \"A\": a name is 1 to 63 characters of [a-z0-9._-] that starts "
        "with a letter or digit");
  CHECK(snapshots::file_of("/d", "base") == std::filesystem::path("/d/base.snap"));
}

TEST_CASE("snapshot files are saved, found, listed, restored and removed", "[snapshots]") {
  TempDir dir;
  auto db = ephemeral_store();
  store::PutRequest put;
  put.key = "/registry/x";
  put.value = "1";
  REQUIRE(db->put(put).is_ok());
  snapshots::Info info;
  bool existed = true;
  auto folder = dir.path() / "snapshots";
  REQUIRE_FALSE(snapshots::save(*db, folder, "one", info, existed));
  CHECK_FALSE(existed);
  CHECK(info.name == "one");
  CHECK(info.revision == db->current_revision());
  CHECK(info.size_bytes > 0);
  CHECK(info.created.size() == 20);  // 2025-01-02T03:04:05Z
  REQUIRE_FALSE(snapshots::save(*db, folder, "one", info, existed));
  CHECK(existed);
  REQUIRE_FALSE(snapshots::save(*db, folder, "two", info, existed));

  std::vector<snapshots::Info> all;
  REQUIRE_FALSE(snapshots::list(folder, all));
  REQUIRE(all.size() == 2);
  CHECK(all[0].name == "one");
  CHECK(all[1].name == "two");
  auto round_trip = snapshots::info_from_json(snapshots::to_json(all[1]));
  REQUIRE(round_trip);
  CHECK(round_trip->name == "two");
  CHECK(round_trip->revision == all[1].revision);

  put.value = "2";
  REQUIRE(db->put(put).is_ok());
  snapshots::Restored restored;
  REQUIRE_FALSE(snapshots::restore(*db, folder, "one", restored));
  CHECK(restored.replaced.written == 1);
  CHECK(restored.duration_ms >= 0);
  store::RangeRequest get;
  get.key = "/registry/x";
  CHECK(db->range(get)->kvs.at(0).value == "1");

  CHECK(snapshots::restore(*db, folder, "three", restored).kind == snapshots::ErrorKind::NotFound);
  CHECK(snapshots::restore(*db, folder, "three", restored).message ==
        "snapshots \"three\" not found");
  CHECK(snapshots::find(folder, "Bad", info).kind == snapshots::ErrorKind::BadName);
  REQUIRE_FALSE(snapshots::remove(folder, "one", info));
  CHECK(snapshots::remove(folder, "one", info).kind == snapshots::ErrorKind::NotFound);
  REQUIRE_FALSE(snapshots::list(folder, all));
  CHECK(all.size() == 1);
  REQUIRE_FALSE(snapshots::list(dir.path() / "none", all));
  CHECK(all.empty());
}

TEST_CASE("restoring a snapshot online brings back its objects with newer resourceVersions",
          "[snapshots][apiserver]") {
  Api api;
  REQUIRE(api.call("POST", kConfigMaps, configmap("keep", "1")).status == 201);
  REQUIRE(api.call("POST", kConfigMaps, configmap("edit", "before")).status == 201);
  REQUIRE(api.call("POST", kConfigMaps, configmap("remove", "x")).status == 201);
  api.settle();
  auto saved = api.call("POST", "/admin/snapshots/base");
  REQUIRE(saved.status == 201);
  CHECK(saved.body["kind"] == "Snapshot");
  CHECK(saved.body["name"] == "base");
  CHECK(api.call("POST", "/admin/snapshots/base").status == 200);  // saved again: replaced
  const auto expected = configmaps(api);

  // Change things: an edit, a delete, a create.
  auto edit = api.call("GET", kConfigMaps + "/edit");
  edit.body["data"]["k"] = "after";
  REQUIRE(api.call("PUT", kConfigMaps + "/edit", edit.body).status == 200);
  REQUIRE(api.call("DELETE", kConfigMaps + "/remove").status == 200);
  REQUIRE(api.call("POST", kConfigMaps, configmap("added", "y")).status == 201);
  int64_t seen = 0;
  CHECK(configmaps(api, &seen) != expected);
  auto stream = api.watch(kConfigMaps + "?watch=true&resourceVersion=" + std::to_string(seen));
  EventReader events(*stream);

  auto restored = api.call("POST", "/admin/snapshots/base/restore");
  REQUIRE(restored.status == 200);
  CHECK(restored.body["kind"] == "SnapshotRestore");
  CHECK(restored.body["written"] == 2);  // edit back, remove back
  CHECK(restored.body["deleted"] == 1);  // added
  CHECK(restored.body["revision"].get<int64_t>() > seen);

  int64_t now = 0;
  CHECK(configmaps(api, &now) == expected);
  CHECK(now > seen);
  auto back = api.call("GET", kConfigMaps + "/remove");
  REQUIRE(back.status == 200);
  CHECK(std::stoll(back.body["metadata"]["resourceVersion"].get<std::string>()) > seen);

  // The open watch ends with the error kube-apiserver sends for a resourceVersion too old.
  auto error = events.next();
  CHECK(error["type"] == "ERROR");
  CHECK(error["object"]["code"] == 410);
  CHECK(error["object"]["reason"] == "Expired");
  // So does a watch from before the restore; one from the new list works.
  auto late = api.watch(kConfigMaps + "?watch=true&resourceVersion=" + std::to_string(seen));
  CHECK(EventReader(*late).next()["object"]["code"] == 410);
  auto fresh = api.watch(kConfigMaps + "?watch=true&resourceVersion=" + std::to_string(now));
  REQUIRE(api.call("POST", kConfigMaps, configmap("later", "z")).status == 201);
  auto added = EventReader(*fresh).next();
  CHECK(added["type"] == "ADDED");
  CHECK(added["object"]["metadata"]["name"] == "later");

  // Reads at a resourceVersion from before answer 410 too.
  auto old_list = api.call("GET", kConfigMaps + "?resourceVersion=" + std::to_string(seen) +
                                      "&resourceVersionMatch=Exact");
  CHECK(old_list.status == 410);
}

TEST_CASE("a restore rebuilds the service IP allocations from the restored services",
          "[snapshots][apiserver]") {
  Api api;
  REQUIRE(api.call("POST", "/admin/snapshots/empty").status == 201);
  json service = {{"apiVersion", "v1"},
                  {"kind", "Service"},
                  {"metadata", {{"name", "a"}}},
                  {"spec",
                   {{"clusterIP", "10.96.0.50"},
                    {"ports", json::array({{{"port", 80}, {"protocol", "TCP"}}})}}}};
  const std::string services = "/api/v1/namespaces/default/services";
  REQUIRE(api.call("POST", services, service).status == 201);
  REQUIRE(api.call("POST", "/admin/snapshots/empty/restore").status == 200);
  CHECK(api.call("GET", services + "/a").status == 404);
  // 10.96.0.50 is free again: the allocator follows the restored store.
  service["metadata"]["name"] = "b";
  CHECK(api.call("POST", services, service).status == 201);
  REQUIRE(api.call("POST", "/admin/snapshots/empty/restore").status == 200);
  service["metadata"]["name"] = "c";
  CHECK(api.call("POST", services, service).status == 201);
}

TEST_CASE("/admin/snapshots answers errors as Status objects", "[snapshots][apiserver]") {
  Api api;
  auto forbidden = api.call("POST", "/admin/snapshots/base", nullptr, "dev");
  CHECK(forbidden.status == 403);
  CHECK(forbidden.body["reason"] == "Forbidden");
  CHECK(forbidden.body["message"] ==
        "forbidden: User \"dev\" cannot post path \"/admin/snapshots/base\"");
  CHECK(api.call("GET", "/admin/snapshots", nullptr, "dev").status == 403);
  CHECK(api.call("GET", "/admin/snapshots", nullptr, "nobody").status == 401);

  auto bad = api.call("POST", "/admin/snapshots/Base");
  CHECK(bad.status == 400);
  CHECK(bad.body["kind"] == "Status");
  CHECK(bad.body["reason"] == "BadRequest");
  CHECK(bad.body["message"] == snapshots::invalid_name_message("Base"));

  auto missing = api.call("POST", "/admin/snapshots/nope/restore");
  CHECK(missing.status == 404);
  CHECK(missing.body["reason"] == "NotFound");
  CHECK(missing.body["message"] == "snapshots \"nope\" not found");
  CHECK(missing.body["details"]["name"] == "nope");
  CHECK(api.call("GET", "/admin/snapshots/nope").status == 404);
  CHECK(api.call("DELETE", "/admin/snapshots/nope").status == 404);
  CHECK(api.call("GET", "/admin/snapshots/nope/other").status == 404);
  CHECK(api.call("PUT", "/admin/snapshots/nope").status == 405);
  CHECK(api.call("GET", "/admin/snapshots/nope/restore").status == 405);

  auto empty = api.call("GET", "/admin/snapshots");
  CHECK(empty.status == 200);
  CHECK(empty.body["kind"] == "SnapshotList");
  CHECK(empty.body["items"].empty());
  REQUIRE(api.call("POST", "/admin/snapshots/a").status == 201);
  auto one = api.call("GET", "/admin/snapshots");
  REQUIRE(one.body["items"].size() == 1);
  CHECK(one.body["items"][0]["name"] == "a");
  CHECK(api.call("GET", "/admin/snapshots/a").body["name"] == "a");
  CHECK(api.call("DELETE", "/admin/snapshots/a").status == 200);
  CHECK(api.call("GET", "/admin/snapshots").body["items"].empty());
}

TEST_CASE("the watch cache ends the watches a replace_all leaves behind and follows on",
          "[snapshots][watch_cache]") {
  auto db = ephemeral_store();
  apiserver::storage::WatchCacheSet cache(*db);
  store::PutRequest put;
  put.key = "/registry/pods/ns/a";
  put.value = "1";
  REQUIRE(db->put(put).is_ok());
  auto before = cache.watch("/registry/pods/", "/registry/pods/", false, 0);
  REQUIRE(before);
  auto replaced = db->replace_all({});
  REQUIRE(replaced.is_ok());
  const int64_t floor = replaced->header.revision + 1;
  cache.reset_all(floor);
  store::WatchResponse r;
  bool ended = false;
  for (int i = 0; i < 100 && !ended; ++i) {
    if (before->next(r, std::chrono::milliseconds(20))) {
      ended = r.canceled;
    }
  }
  REQUIRE(ended);
  CHECK(r.compact_revision == floor);
  CHECK(cache.watch("/registry/pods/", "/registry/pods/", false, floor - 1) == nullptr);
  auto after = cache.watch("/registry/pods/", "/registry/pods/", false, floor);
  REQUIRE(after);
  put.key = "/registry/pods/ns/b";
  REQUIRE(db->put(put).is_ok());
  bool seen = false;
  for (int i = 0; i < 100 && !seen; ++i) {
    if (after->next(r, std::chrono::milliseconds(20))) {
      seen = !r.events.empty() && r.events[0].kv.key == "/registry/pods/ns/b";
    }
  }
  CHECK(seen);
}
