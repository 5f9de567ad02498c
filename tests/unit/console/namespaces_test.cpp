#include "console/model/namespaces.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using console::model::NamespaceSelector;
using nlohmann::json;

namespace {

json ns(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
}

json ns_list(const std::vector<std::string>& names) {
  json list = {{"kind", "NamespaceList"}, {"items", json::array()}};
  for (const auto& name : names) {
    list["items"].push_back(ns(name));
  }
  return list;
}

json event(const std::string& type, const json& object) {
  return {{"type", type}, {"object", object}};
}

using Names = std::vector<std::string>;

NamespaceSelector listed(const Names& names) {
  NamespaceSelector selector;
  REQUIRE_FALSE(selector.replace(ns_list(names)));
  return selector;
}

}  // namespace

TEST_CASE("namespaces list sorted after All namespaces", "[console][model][namespaces]") {
  const NamespaceSelector selector = listed({"kube-system", "default", "b", "default"});
  CHECK(selector.names() == Names{"b", "default", "kube-system"});
  REQUIRE(selector.choice_count() == 4);
  CHECK(selector.choice_label(0) == "All namespaces");
  CHECK(selector.choice_label(1) == "b");
  CHECK(selector.choice_label(3) == "kube-system");
  CHECK(selector.all_selected());
  CHECK(selector.selected_choice() == 0);
}

TEST_CASE("namespace watch events keep the list current", "[console][model][namespaces]") {
  struct Step {
    json event;
    bool changed;
    Names names;
  };
  NamespaceSelector selector = listed({"b", "d"});
  const std::vector<Step> steps = {
      {event("ADDED", ns("c")), true, {"b", "c", "d"}},
      {event("ADDED", ns("a")), true, {"a", "b", "c", "d"}},
      {event("ADDED", ns("z")), true, {"a", "b", "c", "d", "z"}},
      {event("ADDED", ns("c")), false, {"a", "b", "c", "d", "z"}},
      {event("MODIFIED", ns("c")), false, {"a", "b", "c", "d", "z"}},  // e.g. Terminating
      {event("MODIFIED", ns("e")), true, {"a", "b", "c", "d", "e", "z"}},
      {event("DELETED", ns("b")), true, {"a", "c", "d", "e", "z"}},
      {event("DELETED", ns("b")), false, {"a", "c", "d", "e", "z"}},
      {event("BOOKMARK", {{"metadata", {{"resourceVersion", "9"}}}}),
       false,
       {"a", "c", "d", "e", "z"}},
      {event("ERROR", {{"code", 410}}), false, {"a", "c", "d", "e", "z"}},
      {event("ADDED", {{"metadata", json::object()}}), false, {"a", "c", "d", "e", "z"}},
      {json::array(), false, {"a", "c", "d", "e", "z"}},
      {{{"type", "ADDED"}}, false, {"a", "c", "d", "e", "z"}},
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    CAPTURE(i, steps[i].event.dump());
    CHECK(selector.apply(steps[i].event) == steps[i].changed);
    CHECK(selector.names() == steps[i].names);
  }
}

TEST_CASE("the selection stays put until its namespace goes", "[console][model][namespaces]") {
  NamespaceSelector selector = listed({"a", "b", "c"});
  REQUIRE(selector.select("b"));
  CHECK(selector.selected() == "b");
  CHECK(selector.selected_choice() == 2);

  selector.apply(event("ADDED", ns("0-first")));
  CHECK(selector.selected() == "b");
  CHECK(selector.selected_choice() == 3);
  selector.apply(event("DELETED", ns("a")));
  CHECK(selector.selected() == "b");

  SECTION("a deleted selection falls back to All namespaces") {
    selector.apply(event("DELETED", ns("b")));
    CHECK(selector.all_selected());
    CHECK(selector.selected().empty());
    CHECK(selector.selected_choice() == 0);
  }
  SECTION("a relist without it falls back too") {
    REQUIRE_FALSE(selector.replace(ns_list({"a", "c"})));
    CHECK(selector.all_selected());
  }
  SECTION("a relist with it keeps it") {
    REQUIRE_FALSE(selector.replace(ns_list({"b", "x"})));
    CHECK(selector.selected() == "b");
    CHECK(selector.selected_choice() == 1);
  }
  SECTION("an unknown name is refused") {
    CHECK_FALSE(selector.select("nope"));
    CHECK(selector.selected() == "b");
  }
  SECTION("the empty name selects All namespaces") {
    CHECK(selector.select(""));
    CHECK(selector.all_selected());
  }
}

TEST_CASE("choices select by index", "[console][model][namespaces]") {
  NamespaceSelector selector = listed({"a", "b"});
  selector.select_choice(2);
  CHECK(selector.selected() == "b");
  selector.select_choice(3);  // out of range: ignored
  CHECK(selector.selected() == "b");
  selector.select_choice(0);
  CHECK(selector.all_selected());
}

TEST_CASE("before the first list any namespace may be selected", "[console][model][namespaces]") {
  NamespaceSelector selector;
  CHECK(selector.choice_count() == 1);
  REQUIRE(selector.select("team-a"));  // the kubeconfig context's namespace, say
  CHECK(selector.selected() == "team-a");
  CHECK(selector.selected_choice() == 0);  // not listed yet

  SECTION("kept when the list has it") {
    REQUIRE_FALSE(selector.replace(ns_list({"default", "team-a"})));
    CHECK(selector.selected() == "team-a");
    CHECK(selector.selected_choice() == 2);
  }
  SECTION("dropped when the list lacks it") {
    REQUIRE_FALSE(selector.replace(ns_list({"default"})));
    CHECK(selector.all_selected());
  }
}

TEST_CASE("a malformed namespace list changes nothing", "[console][model][namespaces]") {
  struct Row {
    json list;
    std::string error;
  };
  json nameless = ns_list({"a", "b"});
  nameless["items"][0]["metadata"].erase("name");
  const auto row = GENERATE_REF(values<Row>({
      {json("x"), "namespace list: not an object"},
      {{{"items", 3}}, "namespace list: items is not an array"},
      {nameless, "namespace list: items[0].metadata.name is missing"},
  }));
  NamespaceSelector selector = listed({"keep"});
  CHECK(selector.replace(row.list) == row.error);
  CHECK(selector.names() == Names{"keep"});

  SECTION("a list without items is empty") {
    REQUIRE_FALSE(selector.replace(json::object()));
    CHECK(selector.names().empty());
  }
}
