#include "workloads/deployment_rollout.h"
#include "workloads/int_or_percent.h"

#include <catch2/catch.hpp>

#include "client/objects.h"

using namespace cluster::deployment;
using nlohmann::json;

namespace {

const json kTemplate = json::parse(R"({
  "metadata": {"labels": {"app": "web"}},
  "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}
})");

json rolling(json surge, json unavailable) {
  return {{"type", "RollingUpdate"},
          {"rollingUpdate", {{"maxSurge", surge}, {"maxUnavailable", unavailable}}}};
}

// A Deployment as the server defaults it (RollingUpdate, 25% and 25%, unless `strategy`).
json deployment(int64_t replicas, json strategy = rolling("25%", "25%")) {
  json d = {{"metadata", {{"name", "web"}, {"generation", 2}}},
            {"spec",
             {{"replicas", replicas},
              {"selector", {{"matchLabels", {{"app", "web"}}}}},
              {"template", kTemplate},
              {"progressDeadlineSeconds", 600},
              {"revisionHistoryLimit", 10}}},
            {"status", {{"observedGeneration", 2}}}};
  d["spec"]["strategy"] = std::move(strategy);
  return d;
}

// A ReplicaSet with `replicas` wanted, `available` of them available (all present and ready).
json replica_set(const std::string& name, int64_t replicas, int64_t available,
                 const std::string& created = "2025-01-01T00:00:00Z") {
  return {{"metadata", {{"name", name}, {"creationTimestamp", created}, {"generation", 1}}},
          {"spec", {{"replicas", replicas}, {"template", kTemplate}}},
          {"status",
           {{"replicas", replicas},
            {"readyReplicas", available},
            {"availableReplicas", available},
            {"observedGeneration", 1}}}};
}

std::string steps_of(const std::vector<Scale>& steps) {
  std::string out;
  for (const Scale& s : steps) {
    out += (out.empty() ? "" : ", ") + s.name + " " + std::to_string(s.from) + "->" +
           std::to_string(s.to);
  }
  return out;
}

const auto kNow = std::chrono::system_clock::time_point(std::chrono::seconds(1767225600));

}  // namespace

TEST_CASE("the pod-template hash is stable and spelled in the name alphabet", "[deployment]") {
  const std::string hash = pod_template_hash(kTemplate, 0);
  CHECK(hash == pod_template_hash(json::parse(kTemplate.dump()), 0));
  CHECK(hash.find_first_not_of("bcdfghjklmnpqrstvwxz2456789") == std::string::npos);
  CHECK(hash.size() >= 1);
  CHECK(hash.size() <= 10);
  SECTION("a collision count gives another name") {
    CHECK(pod_template_hash(kTemplate, 1) != hash);
    CHECK(pod_template_hash(kTemplate, 1) == pod_template_hash(kTemplate, 1));
  }
  SECTION("another template gives another name") {
    json other = kTemplate;
    other["spec"]["containers"][0]["image"] = "nginx:1.28";
    CHECK(pod_template_hash(other, 0) != hash);
  }
}

TEST_CASE("templates compare without the hash label and empty fields", "[deployment]") {
  json labelled = kTemplate;
  labelled["metadata"]["labels"][kHashLabel] = "5d4b9c";
  labelled["metadata"]["annotations"] = json::object();
  CHECK(equal_ignore_hash(kTemplate, labelled));
  labelled["spec"]["containers"][0]["image"] = "nginx:1.28";
  CHECK_FALSE(equal_ignore_hash(kTemplate, labelled));
}

TEST_CASE("surge rounds up, unavailability down, and one of them is at least 1", "[deployment]") {
  const auto [surge, unavailable, desired, want_surge, want_unavailable] =
      GENERATE(table<json, json, int64_t, int64_t, int64_t>({
          {"25%", "25%", 10, 3, 2},
          {"25%", "25%", 3, 1, 0},
          {"25%", "25%", 4, 1, 1},
          {"25%", "25%", 1, 1, 0},
          {"0%", "0%", 10, 0, 1},
          {0, 0, 5, 0, 1},
          {2, "50%", 5, 2, 2},
          {"100%", 0, 3, 3, 0},
      }));
  CAPTURE(surge, unavailable, desired);
  const Fenceposts f = resolve_fenceposts(&surge, &unavailable, desired);
  CHECK(f.surge == want_surge);
  CHECK(f.unavailable == want_unavailable);
  CHECK_FALSE(cluster::scaled_value("abc", 10, true).has_value());
  CHECK_FALSE(cluster::scaled_value("%", 10, true).has_value());
  CHECK_FALSE(cluster::scaled_value("-5%", 10, true).has_value());
  CHECK_FALSE(cluster::scaled_value("99999999999999999999%", 10, true).has_value());
}

TEST_CASE("a rolling update moves one step at a time within its budgets", "[deployment]") {
  SECTION("replicas 3, defaults: the new ReplicaSet surges by one") {
    CHECK(steps_of(plan_rolling(deployment(3), replica_set("web-new", 0, 0),
                                {replica_set("web-old", 3, 3)})) == "web-new 0->1");
  }
  SECTION("the surge is used and the new pod is not available: nothing moves") {
    CHECK(steps_of(plan_rolling(deployment(3), replica_set("web-new", 1, 0),
                                {replica_set("web-old", 3, 3)})) == "");
  }
  SECTION("the new pod is available: an old one goes") {
    CHECK(steps_of(plan_rolling(deployment(3), replica_set("web-new", 1, 1),
                                {replica_set("web-old", 3, 3)})) == "web-old 3->2");
  }
  SECTION("unavailable old replicas go first, then available ones within maxUnavailable") {
    const json d = deployment(3, rolling(0, 1));
    CHECK(steps_of(plan_rolling(d, replica_set("web-new", 0, 0), {replica_set("web-old", 3, 1)})) ==
          "web-old 3->2");
    CHECK(steps_of(plan_rolling(d, replica_set("web-new", 0, 0), {replica_set("web-old", 3, 3)})) ==
          "web-old 3->2");
  }
  SECTION("the oldest ReplicaSets are scaled down first") {
    const json d = deployment(4, rolling(0, 2));
    CHECK(steps_of(plan_rolling(d, replica_set("web-new", 0, 0),
                                {replica_set("web-b", 2, 2, "2025-01-02T00:00:00Z"),
                                 replica_set("web-a", 2, 2, "2025-01-01T00:00:00Z")})) ==
          "web-a 2->0");
  }
  SECTION("a new ReplicaSet above spec.replicas comes down to it") {
    CHECK(steps_of(plan_rolling(deployment(2), replica_set("web-new", 5, 5), {})) ==
          "web-new 5->2");
  }
}

TEST_CASE("a scaling event spreads the difference in proportion", "[deployment]") {
  SECTION("one active ReplicaSet takes all of it") {
    CHECK(steps_of(plan_scale(deployment(5), nullptr, {replica_set("web-a", 3, 3)})) ==
          "web-a 3->5");
  }
  SECTION("5 -> 10 during a rollout: 4 + 3 of 7 become 7 + 6 of 13") {
    json a = replica_set("web-a", 4, 4, "2025-01-01T00:00:00Z");
    json b = replica_set("web-b", 3, 0, "2025-01-02T00:00:00Z");
    for (json* rs : {&a, &b}) {
      (*rs)["metadata"]["annotations"] = {{kDesiredReplicas, "5"}, {kMaxReplicas, "7"}};
    }
    const json d = deployment(10);
    CHECK(is_scaling_event(d, {a, b}));
    CHECK(steps_of(plan_scale(d, &b, {a})) == "web-a 4->7, web-b 3->6");
  }
}

TEST_CASE("old ReplicaSets beyond the history limit are deleted oldest first", "[deployment]") {
  json d = deployment(1);
  d["spec"]["revisionHistoryLimit"] = 1;
  const std::vector<json> old = {replica_set("web-c", 0, 0, "2025-01-03T00:00:00Z"),
                                 replica_set("web-a", 0, 0, "2025-01-01T00:00:00Z"),
                                 replica_set("web-b", 0, 0, "2025-01-02T00:00:00Z")};
  CHECK(to_clean_up(d, old) == std::vector<std::string>{"web-a", "web-b"});
  SECTION("one with replicas stays") {
    std::vector<json> busy = old;
    busy[1]["spec"]["replicas"] = 1;
    CHECK(to_clean_up(d, busy) == std::vector<std::string>{"web-b"});
  }
}

TEST_CASE("the new ReplicaSet's revision follows the old ones", "[deployment]") {
  json rs = replica_set("web-new", 0, 0);
  rs["metadata"]["annotations"] = {{kRevision, "2"}};
  json d = deployment(3);
  d["metadata"]["annotations"] = {{"team", "a"}, {kRevision, "9"}};
  CHECK(set_new_rs_annotations(d, rs, 4, true));
  CHECK(rs["metadata"]["annotations"] ==
        json({{"team", "a"}, {kRevision, "4"}, {kRevisionHistory, "2"}}));
  CHECK_FALSE(set_new_rs_annotations(d, rs, 4, true));
  json created = replica_set("web-new", 0, 0);
  CHECK(set_new_rs_annotations(d, created, 1, false));
  CHECK(created["metadata"]["annotations"][kDesiredReplicas] == "3");
  CHECK(created["metadata"]["annotations"][kMaxReplicas] == "4");
}

TEST_CASE("the rollout status carries upstream's conditions", "[deployment]") {
  const json d = deployment(3);
  SECTION("complete") {
    const json rs = replica_set("web-7d4b9c", 3, 3);
    const json status = rollout_status(d, {rs}, &rs, kNow);
    CHECK(status["replicas"] == 3);
    CHECK(status["updatedReplicas"] == 3);
    CHECK(status["availableReplicas"] == 3);
    CHECK_FALSE(status.contains("unavailableReplicas"));
    const json* available = deployment_condition_of(status, "Available");
    REQUIRE(available != nullptr);
    CHECK((*available)["reason"] == "MinimumReplicasAvailable");
    CHECK((*available)["message"] == "Deployment has minimum availability.");
    const json* progressing = deployment_condition_of(status, "Progressing");
    REQUIRE(progressing != nullptr);
    CHECK((*progressing)["status"] == "True");
    CHECK((*progressing)["reason"] == "NewReplicaSetAvailable");
    CHECK((*progressing)["message"] == "ReplicaSet \"web-7d4b9c\" has successfully progressed.");
    CHECK(complete(d, status));
  }
  SECTION("progressing, then past the deadline without progress") {
    json rs = replica_set("web-7d4b9c", 3, 1);
    const json status = rollout_status(d, {rs}, &rs, kNow);
    const json* available = deployment_condition_of(status, "Available");
    REQUIRE(available != nullptr);
    CHECK((*available)["reason"] == "MinimumReplicasUnavailable");
    CHECK((*available)["message"] == "Deployment does not have minimum availability.");
    const json* progressing = deployment_condition_of(status, "Progressing");
    REQUIRE(progressing != nullptr);
    CHECK((*progressing)["reason"] == "ReplicaSetUpdated");
    CHECK((*progressing)["message"] == "ReplicaSet \"web-7d4b9c\" is progressing.");

    json later = d;
    later["status"] = status;
    CHECK(stuck_requeue(later, status, kNow + std::chrono::seconds(100)) ==
          std::chrono::seconds(501));
    const json timed_out = rollout_status(later, {rs}, &rs, kNow + std::chrono::seconds(601));
    progressing = deployment_condition_of(timed_out, "Progressing");
    REQUIRE(progressing != nullptr);
    CHECK((*progressing)["status"] == "False");
    CHECK((*progressing)["reason"] == "ProgressDeadlineExceeded");
    CHECK((*progressing)["message"] == "ReplicaSet \"web-7d4b9c\" has timed out progressing.");
  }
}
