// Test support for the patch tables: a row (a document, a patch body, and the result or the error
// text) and the check every kind of patch makes of it.
#pragma once

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "endpoints/patch/json_patch.h"

namespace apiserver::testing {

struct PatchRow {
  std::string name;
  std::string doc;
  std::string patch;
  std::string result;  // JSON, when the patch applies
  std::string error;   // the error text the table checks, when it does not
};

// Applies `apply` to the row's document and patch (CAPTURE the row in the caller). A row with a
// result: checks it and returns nullopt. A row with an error: requires a PatchError and returns it
// for the caller to check.
template <typename Apply>
std::optional<endpoints::patch::PatchError> apply_row(const PatchRow& row, Apply apply) {
  auto out = apply(nlohmann::json::parse(row.doc), nlohmann::json::parse(row.patch));
  if (row.error.empty()) {
    REQUIRE(std::holds_alternative<nlohmann::json>(out));
    CHECK(std::get<nlohmann::json>(out) == nlohmann::json::parse(row.result));
    return std::nullopt;
  }
  REQUIRE(std::holds_alternative<endpoints::patch::PatchError>(out));
  return std::get<endpoints::patch::PatchError>(std::move(out));
}

}  // namespace apiserver::testing
