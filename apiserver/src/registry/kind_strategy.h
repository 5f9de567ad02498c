// A kind's strategy: the rules of one built-in kind that the generic code (defaulting,
// validation, Tables) calls instead of dispatching on kind names itself, as kube-apiserver's
// registry strategies do. One file per kind family under kinds/ fills these in; a kind without
// an entry gets the generic behaviour (metadata rules only, no defaults, the default Table).
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "registry/defaults.h"
#include "registry/objects.h"

namespace apiserver::registry {

namespace cells {
struct Context;
}

struct KindStrategy {
  std::string_view group;  // "" for the core group
  std::string_view kind;
  // The defaults of the phase (defaults.h), applied to a whole object of this kind.
  void (*defaults)(nlohmann::json& object, const DefaultingContext& context) = nullptr;
  // The kind's own rules on create and update, after the metadata rules.
  void (*validate)(const nlohmann::json& object, std::vector<FieldError>& out) = nullptr;
  // The kind's own rules on update only (immutable fields, allowed transitions), after validate.
  void (*validate_update)(const nlohmann::json& object, const nlohmann::json& old,
                          std::vector<FieldError>& out) = nullptr;
  // The Table cells of one object, every column (wide ones included) in the order of the
  // Resource row's table_columns.
  nlohmann::json (*print)(const nlohmann::json& object, const cells::Context& context) = nullptr;
  // True when validate replaces the metadata rules (core Events check their own metadata).
  bool own_metadata_rules = false;
};

// The strategy of a built-in kind, or null when it has none. Lock-free after the first call.
const KindStrategy* kind_strategy(std::string_view group, std::string_view kind);

// Every strategy, sorted by group then kind (for tests and listings).
const std::vector<KindStrategy>& kind_strategies();

}  // namespace apiserver::registry
