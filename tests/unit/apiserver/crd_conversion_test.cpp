#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "apiserver/registry.h"
#include "registry/custom_conversion.h"
#include "registry/custom_resources.h"
#include "registry/served_form.h"
#include "registry/version_priority.h"

using nlohmann::json;
using namespace apiserver::registry;

namespace {

// A converter that answers what it was given to answer, for checking what convert_custom makes
// of a strategy's answer.
class Scripted final : public CustomConverter {
 public:
  explicit Scripted(
      std::function<common::Result<std::vector<json>>(const std::vector<json>&, const std::string&)>
          answer)
      : answer_(std::move(answer)) {}
  std::string strategy() const override { return "Scripted"; }
  common::Result<std::vector<json>> convert(const std::vector<json>& objects,
                                            const std::string& api_version,
                                            const std::string& what) const override {
    seen_what = what;
    calls++;
    return answer_(objects, api_version);
  }
  mutable std::string seen_what;
  mutable int calls = 0;

 private:
  std::function<common::Result<std::vector<json>>(const std::vector<json>&, const std::string&)>
      answer_;
};

const std::vector<std::string> kVersions = {"test.example.com/v1alpha1",
                                            "test.example.com/v1alpha2"};

json gadget(const std::string& version) {
  return {{"apiVersion", "test.example.com/" + version},
          {"kind", "Gadget"},
          {"metadata",
           {{"name", "g"}, {"namespace", "default"}, {"uid", "u1"}, {"resourceVersion", "7"}}},
          {"spec", {{"size", "3"}}}};
}

// A webhook-like conversion: size (string) in v1alpha1, replicas (integer) in v1alpha2.
Scripted renaming() {
  return Scripted([](const std::vector<json>& objects, const std::string& to) {
    std::vector<json> out;
    for (json o : objects) {
      o["apiVersion"] = to;
      o["spec"] = {{"replicas", 3}};
      o["metadata"] = {{"name", "g"},
                       {"namespace", "default"},
                       {"uid", "u1"},
                       {"labels", {{"converted", "yes"}}},
                       {"resourceVersion", "999"}};
      out.push_back(o);
    }
    return common::Result<std::vector<json>>(out);
  });
}

std::string message_of(const std::optional<apiserver::errors::Status>& status) {
  return status ? status->message : "";
}

}  // namespace

TEST_CASE("version priority orders GA, beta, alpha, then other names alphabetically",
          "[conversion]") {
  std::vector<std::string> versions = {"foo10",   "v1alpha1", "v11alpha2", "v1",        "foo1",
                                       "v3beta1", "v10beta3", "v2",        "v12alpha1", "v11beta2"};
  sort_by_version_priority(versions);
  CHECK(versions == std::vector<std::string>{"v2", "v1", "v11beta2", "v10beta3", "v3beta1",
                                             "v12alpha1", "v11alpha2", "v1alpha1", "foo1",
                                             "foo10"});
  CHECK(compare_version_priority("v1alpha2", "v1alpha1") > 0);
  CHECK(compare_version_priority("v1", "v1") == 0);
  CHECK(compare_version_priority("v99999999999999999999", "v1") <
        0);                                                   // out of range: not kube-like
  CHECK(compare_version_priority("v1beta", "v1alpha1") < 0);  // no minor: not kube-like
}

TEST_CASE("strategy None changes apiVersion only", "[conversion]") {
  json object = gadget("v1alpha1");
  REQUIRE_FALSE(convert_custom(nullptr, kVersions, {&object}, "test.example.com/v1alpha2"));
  json expected = gadget("v1alpha1");
  expected["apiVersion"] = "test.example.com/v1alpha2";
  CHECK(object == expected);
}

TEST_CASE("a strategy's answer keeps the original metadata but labels and annotations",
          "[conversion]") {
  Scripted hook = renaming();
  json object = gadget("v1alpha1");
  REQUIRE_FALSE(convert_custom(&hook, kVersions, {&object}, "test.example.com/v1alpha2"));
  CHECK(object["spec"] == json{{"replicas", 3}});
  CHECK(object["metadata"]["resourceVersion"] == "7");
  CHECK(object["metadata"]["labels"] == json{{"converted", "yes"}});
  CHECK(hook.seen_what == "/, Kind=");
  // Already at the version asked for: nothing is sent.
  REQUIRE_FALSE(convert_custom(&hook, kVersions, {&object}, "test.example.com/v1alpha2"));
  CHECK(hook.calls == 1);
}

TEST_CASE("list items go to the strategy together, named by the list's kind", "[conversion]") {
  Scripted hook = renaming();
  json a = gadget("v1alpha1");
  json b = gadget("v1alpha2");
  json c = gadget("v1alpha1");
  REQUIRE_FALSE(
      convert_custom(&hook, kVersions, {&a, &b, &c}, "test.example.com/v1alpha2", "GadgetList"));
  CHECK(hook.calls == 1);
  CHECK(hook.seen_what == "test.example.com/v1alpha2, Kind=GadgetList");
  CHECK(a["spec"] == json{{"replicas", 3}});
  CHECK(b["spec"] == json{{"size", "3"}});  // was there already: untouched
}

TEST_CASE("conversion failures read as kube-apiserver's", "[conversion]") {
  json object = gadget("v1alpha1");
  const json before = object;
  auto failing = [](std::function<void(std::vector<json>&)> change) {
    return Scripted([change](const std::vector<json>& objects, const std::string& to) {
      std::vector<json> out = objects;
      for (auto& o : out) {
        o["apiVersion"] = to;
      }
      change(out);
      return common::Result<std::vector<json>>(out);
    });
  };
  const std::string prefix = "conversion for test.example.com/v1alpha1, Kind=Gadget ";
  Scripted refusing([](const std::vector<json>&, const std::string&) {
    return common::Result<std::vector<json>>::failure(
        "conversion webhook for /, Kind= failed: no way");
  });
  auto status = convert_custom(&refusing, kVersions, {&object}, "test.example.com/v1alpha2");
  REQUIRE(status);
  CHECK(status->code == 500);
  CHECK(status->reason.empty());
  CHECK(status->message == prefix + "failed: conversion webhook for /, Kind= failed: no way");

  Scripted fewer = failing([](std::vector<json>& out) { out.clear(); });
  CHECK(message_of(convert_custom(&fewer, kVersions, {&object}, "test.example.com/v1alpha2")) ==
        prefix + "returned 0 objects, expected 1");
  Scripted renamed = failing([](std::vector<json>& out) { out[0]["metadata"]["name"] = "h"; });
  CHECK(message_of(convert_custom(&renamed, kVersions, {&object}, "test.example.com/v1alpha2")) ==
        prefix + "returned invalid converted object at index 1: must have the same name: g != h");
  Scripted wrong_version =
      failing([](std::vector<json>& out) { out[0]["apiVersion"] = "test.example.com/v9"; });
  CHECK(message_of(
            convert_custom(&wrong_version, kVersions, {&object}, "test.example.com/v1alpha2")) ==
        prefix +
            "returned invalid converted object at index 1: invalid groupVersion (expected "
            "test.example.com/v1alpha2, received test.example.com/v9)");
  Scripted bad_label = failing([](std::vector<json>& out) {
    out[0]["metadata"]["labels"] = {{"a", 1}};
  });
  CHECK(message_of(convert_custom(&bad_label, kVersions, {&object}, "test.example.com/v1alpha2")) ==
        prefix +
            "returned invalid metadata in object at index 1: metadata.labels[a] must be a "
            "string, but is float64 in converted object");
  Scripted no_metadata = failing([](std::vector<json>& out) { out[0].erase("metadata"); });
  CHECK(
      message_of(convert_custom(&no_metadata, kVersions, {&object}, "test.example.com/v1alpha2")) ==
      prefix + "returned invalid converted object at index 1: must have the same name: g != ");
  CHECK(object == before);  // a failure changes nothing

  CHECK(message_of(convert_custom(nullptr, kVersions, {&object}, "test.example.com/v3")) ==
        "request to convert CR to an invalid group/version: test.example.com/v3");
  json stray = gadget("v7");
  CHECK(message_of(convert_custom(nullptr, kVersions, {&stray}, "test.example.com/v1alpha2")) ==
        "request to convert CR from an invalid group/version: test.example.com/v7");
}

TEST_CASE("a CRD's rows: stored as the storage version, deprecation warnings", "[conversion]") {
  json crd = json::parse(R"({
    "metadata": {"name": "gadgets.test.example.com"},
    "spec": {"group": "test.example.com", "scope": "Namespaced",
      "names": {"plural": "gadgets", "kind": "Gadget"},
      "versions": [
        {"name": "v1alpha1", "served": true, "storage": false, "deprecated": true,
         "schema": {"openAPIV3Schema": {"type": "object"}}},
        {"name": "v1beta1", "served": true, "storage": false, "deprecated": true,
         "deprecationWarning": "use v1, please",
         "schema": {"openAPIV3Schema": {"type": "object"}}},
        {"name": "v1", "served": true, "storage": true,
         "schema": {"openAPIV3Schema": {"type": "object"}}},
        {"name": "v2", "served": false, "storage": false,
         "schema": {"openAPIV3Schema": {"type": "object"}}}]}})");
  auto rows = rows_for_crd(crd, names_of(crd), false);
  REQUIRE(rows);
  REQUIRE(rows->size() == 3);
  const Resource& alpha = (*rows)[0];
  CHECK(alpha.custom->deprecation_warning ==
        "test.example.com/v1alpha1 Gadget is deprecated; use test.example.com/v1 Gadget");
  CHECK((*rows)[1].custom->deprecation_warning == "use v1, please");
  CHECK_FALSE((*rows)[2].custom->deprecated);
  REQUIRE(alpha.stored_as);
  CHECK(alpha.stored_as->version == "v1");
  CHECK(&storage_row((*rows)[2]) == &(*rows)[2]);
  CHECK(alpha.custom->versions.size() == 4);

  json object = {{"apiVersion", "test.example.com/v1alpha1"},
                 {"kind", "Gadget"},
                 {"metadata", {{"name", "g"}}}};
  REQUIRE_FALSE(to_stored_form(alpha, object));
  CHECK(object["apiVersion"] == "test.example.com/v1");
  auto text = served_text(alpha, object.dump());
  REQUIRE(text);
  REQUIRE(*text);
  CHECK(json::parse(**text)["apiVersion"] == "test.example.com/v1alpha1");
}

TEST_CASE("a group of custom resources lists its versions by priority", "[conversion]") {
  auto registry = Registry::builtin();
  for (const char* version : {"v1alpha1", "v1", "v1beta2"}) {
    Resource r;
    r.group = "test.example.com";
    r.version = version;
    r.resource = "gadgets";
    r.kind = "Gadget";
    registry->upsert(r);
  }
  auto snapshot = registry->snapshot();
  const GroupVersions* group = nullptr;
  for (const auto& g : snapshot->groups()) {
    if (g.name == "test.example.com") {
      group = &g;
    }
  }
  REQUIRE(group != nullptr);
  CHECK(group->versions == std::vector<std::string>{"v1", "v1beta2", "v1alpha1"});
  CHECK(group->preferred_version == "v1");
  registry->remove("test.example.com", "v1", "gadgets");
  snapshot = registry->snapshot();
  for (const auto& g : snapshot->groups()) {
    if (g.name == "test.example.com") {
      CHECK(g.preferred_version == "v1beta2");
    }
  }
}

TEST_CASE("spec.conversion is validated with upstream's paths and words", "[conversion]") {
  auto errors_for = [](const json& conversion) {
    json crd = json::parse(R"({
      "metadata": {"name": "gadgets.test.example.com"},
      "spec": {"group": "test.example.com", "scope": "Namespaced",
        "names": {"plural": "gadgets", "kind": "Gadget", "singular": "gadget",
                  "listKind": "GadgetList"},
        "versions": [{"name": "v1", "served": true, "storage": true,
                      "schema": {"openAPIV3Schema": {"type": "object"}}}]}})");
    crd["spec"]["conversion"] = conversion;
    std::string out;
    for (const auto& e : validate_crd(crd)) {
      out += e.field + ": " + e.message + "\n";
    }
    return out;
  };
  CHECK(errors_for({{"strategy", "None"}}).empty());
  CHECK(errors_for({{"strategy", "Sometimes"}}) ==
        "spec.conversion.strategy: Unsupported value: \"Sometimes\": supported values: \"None\", "
        "\"Webhook\"\n");
  CHECK(errors_for({{"strategy", "Webhook"}}) ==
        "spec.conversion.webhookClientConfig: Required value: required when strategy is set to "
        "Webhook\nspec.conversion.conversionReviewVersions: Required value\n");
  CHECK(errors_for({{"strategy", "Webhook"},
                    {"webhook",
                     {{"clientConfig", json::object()},
                      {"conversionReviewVersions", json::array({"v2"})}}}}) ==
        "spec.conversion.webhookClientConfig: Required value: exactly one of url or service is "
        "required\nspec.conversion.conversionReviewVersions: Invalid value: []string{\"v2\"}: "
        "must include at least one of v1, v1beta1\n");
  CHECK(
      errors_for({{"strategy", "None"}, {"webhook", {{"clientConfig", {{"url", "https://x"}}}}}}) ==
      "spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not "
      "set to Webhook\n");
}
