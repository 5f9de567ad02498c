// An empty store in memory, for tests that build their API server themselves.
#pragma once

#include <catch2/catch.hpp>
#include <memory>

#include "store/store.h"

namespace apiserver::testing {

inline std::unique_ptr<store::Store> ephemeral_store() {
  store::Options options;
  options.durability = store::Durability::Ephemeral;
  auto opened = store::Store::open(options);
  REQUIRE(opened.is_ok());
  return std::move(opened).value();
}

}  // namespace apiserver::testing
