// The editor's Create (from a template or a duplicate) and Replace, through the request worker.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "console/app/console_state.h"
#include "console/model/yaml_text.h"
#include "fake_session.h"

using console::app::ConsoleState;
using console::testing::configmap;
using nlohmann::json;

namespace {

constexpr int64_t kNowMs = console::testing::ShowingConfigMaps::now;

// Shows configmaps (default/cm1 at resourceVersion 10); namespaces default and team.
struct Fixture : console::testing::ShowingConfigMaps {
  json editor_object() const {
    auto parsed = console::model::parse_yaml(const_cast<ConsoleState&>(state).editor_text());
    INFO((parsed ? std::string() : parsed.error()));
    REQUIRE(parsed);
    return *parsed;
  }
};

const char* kConflict =
    R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409,)"
    R"("message":"Operation cannot be fulfilled on configmaps \"cm1\": the object has been )"
    R"(modified; please apply your changes to the latest version and try again",)"
    R"("details":{"name":"cm1","kind":"configmaps"}})";

}  // namespace

TEST_CASE("new opens a template of the shown kind in the selected namespace",
          "[console][app][create]") {
  Fixture f;
  REQUIRE(f.state.select_namespace("team"));
  REQUIRE(f.state.begin_create());
  CHECK(f.state.creating());
  const json object = f.editor_object();
  CHECK(object["kind"] == "ConfigMap");
  CHECK(object["metadata"]["namespace"] == "team");
  CHECK(object["metadata"]["name"] == "new-configmap");
  CHECK(f.state.dump()["editor"]["mode"] == "create");

  SECTION("create POSTs it to its namespace; once listed the table selects it") {
    std::string& text = f.state.editor_text();
    text.replace(text.find("  key: value\n"), 13, "  extra: more\n  key: value\n");
    REQUIRE(f.state.create());
    const uint64_t id = f.session.find("POST", "/api/v1/namespaces/team/configmaps");
    REQUIRE(id != 0);
    const auto& request = f.session.request(id);
    CHECK(request.target == "/api/v1/namespaces/team/configmaps?fieldManager=kube-sandbox-console");
    CHECK(request.content_type == "application/json");
    CHECK(json::parse(request.body)["data"] == json{{"key", "value"}, {"extra", "more"}});
    f.session.reply(id, 201, configmap("team", "new-configmap", "11").dump());
    f.state.update(kNowMs);
    REQUIRE(f.state.action_result());
    CHECK(f.state.action_result()->ok);
    CHECK(f.state.action_result()->action == "create");
    CHECK(f.state.action_result()->resource_version == "11");
    CHECK_FALSE(f.state.editing());
    f.session.event("core/configmaps", "ADDED", configmap("team", "new-configmap", "11"),
                    json{"new-configmap", 1, "0s"});
    f.state.update(kNowMs);
    f.state.update(kNowMs + 5000);  // past any rebuild throttle
    const auto selected = f.state.selected_ref();
    INFO(f.state.dump()["kinds"]["core/configmaps"].dump());
    REQUIRE(selected);
    CHECK(selected->name == "new-configmap");
    CHECK(selected->namespace_ == "team");
  }
  SECTION("the namespace the YAML names wins") {
    f.state.editor_text() =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\n";
    REQUIRE(f.state.create());
    CHECK(f.session.find("POST", "/api/v1/namespaces/default/configmaps") != 0);
  }
  SECTION("refused: the Status shows with its causes and the text stays") {
    f.state.editor_text() += "  bad key: x\n";
    const std::string typed = f.state.editor_text();
    REQUIRE(f.state.create());
    const json invalid = {
        {"kind", "Status"},
        {"status", "Failure"},
        {"reason", "Invalid"},
        {"code", 422},
        {"message", "ConfigMap \"new-configmap\" is invalid: data[bad key]: Invalid value"},
        {"details",
         {{"causes",
           {{{"reason", "FieldValueInvalid"},
             {"message", "Invalid value: \"bad key\""},
             {"field", "data[bad key]"}}}}}}};
    f.session.reply(f.session.find("POST", "/api/v1/namespaces/team/configmaps"), 422,
                    invalid.dump());
    f.state.update(kNowMs);
    REQUIRE(f.state.action_result());
    REQUIRE(f.state.action_result()->error);
    CHECK(f.state.action_result()->error->reason == "Invalid");
    REQUIRE(f.state.action_result()->error->causes.size() == 1);
    CHECK(f.state.action_result()->error->causes[0].field == "data[bad key]");
    CHECK(f.state.creating());
    CHECK(f.state.editor_text() == typed);
  }
  SECTION("YAML that does not parse is refused here, and the text stays") {
    f.state.editor_text() = "metadata: [unclosed\n";
    CHECK_FALSE(f.state.create());
    REQUIRE(f.state.action_result());
    CHECK(f.state.action_result()->error->reason == "Invalid");
    CHECK(f.state.editor_text() == "metadata: [unclosed\n");
    CHECK(f.session.find("POST", "/api/v1/namespaces/team/configmaps") == 0);
  }
  SECTION("apply and replace do not send a new object") {
    CHECK_FALSE(f.state.apply());
    CHECK_FALSE(f.state.replace());
    CHECK(f.session.find("PUT", "/api/v1/namespaces/team/configmaps/new-configmap") == 0);
  }
}

TEST_CASE("nothing replaces text being edited", "[console][app][create]") {
  Fixture f;
  REQUIRE(f.state.select_object("default", "cm1"));
  REQUIRE(f.state.begin_edit());
  f.state.editor_text() = "typed by hand";
  CHECK_FALSE(f.state.begin_create());
  CHECK_FALSE(f.state.begin_duplicate());
  CHECK_FALSE(f.state.begin_edit());
  CHECK(f.state.editor_text() == "typed by hand");
  CHECK_FALSE(f.state.creating());
}

TEST_CASE("duplicate opens a renamed copy to create", "[console][app][create]") {
  Fixture f;
  REQUIRE(f.state.select_object("default", "cm1"));
  REQUIRE(f.state.begin_duplicate());
  CHECK(f.state.creating());
  const json object = f.editor_object();
  CHECK(object["metadata"] == json{{"name", "cm1-copy"}, {"namespace", "default"}});
  CHECK(object["data"] == json{{"key", "one"}});
  REQUIRE(f.state.submit_editor());  // Ctrl+S creates
  CHECK(f.session.find("POST", "/api/v1/namespaces/default/configmaps") != 0);
}

TEST_CASE("replace PUTs the text with the resourceVersion the edit began from",
          "[console][app][replace]") {
  Fixture f;
  REQUIRE(f.state.select_object("default", "cm1"));
  REQUIRE(f.state.begin_edit());
  CHECK(f.state.dump()["editor"]["mode"] == "edit");
  std::string& text = f.state.editor_text();
  text.replace(text.find("  key: one\n"), 11, "  key: one\n  other: two\n");
  const std::string typed = text;
  REQUIRE(f.state.replace());
  const uint64_t id = f.session.find("PUT", "/api/v1/namespaces/default/configmaps/cm1");
  REQUIRE(id != 0);
  const json body = json::parse(f.session.request(id).body);
  CHECK(body["metadata"]["resourceVersion"] == "10");
  CHECK(body["data"] == json{{"key", "one"}, {"other", "two"}});
  CHECK(f.session.request(id).content_type == "application/json");

  SECTION("a Conflict shows the Status and keeps the text") {
    f.session.reply(id, 409, kConflict);
    f.state.update(kNowMs);
    REQUIRE(f.state.action_result());
    CHECK(f.state.action_result()->action == "replace");
    REQUIRE(f.state.action_result()->error);
    CHECK(f.state.action_result()->error->http_status == 409);
    CHECK(f.state.action_result()->error->reason == "Conflict");
    CHECK(f.state.action_result()->error->message.starts_with(
        "Operation cannot be fulfilled on configmaps \"cm1\""));
    CHECK(f.state.editing());
    CHECK(f.state.editor_text() == typed);
  }
  SECTION("accepted: the editor closes") {
    f.session.reply(id, 200, configmap("default", "cm1", "12").dump());
    f.state.update(kNowMs);
    REQUIRE(f.state.action_result());
    CHECK(f.state.action_result()->ok);
    CHECK(f.state.action_result()->resource_version == "12");
    CHECK_FALSE(f.state.editing());
  }
}

TEST_CASE("a resourceVersion written in the text is the one replace sends",
          "[console][app][replace]") {
  Fixture f;
  REQUIRE(f.state.select_object("default", "cm1"));
  REQUIRE(f.state.begin_edit());
  f.state.editor_text() =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\n  namespace: default\n"
      "  resourceVersion: \"99\"\n";
  REQUIRE(f.state.replace());
  const uint64_t id = f.session.find("PUT", "/api/v1/namespaces/default/configmaps/cm1");
  REQUIRE(id != 0);
  CHECK(json::parse(f.session.request(id).body)["metadata"]["resourceVersion"] == "99");
}
