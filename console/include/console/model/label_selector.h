// A Kubernetes label selector such as "app=web,tier in (fe,be),!canary", parsed with the grammar
// and validation the API server applies to ?labelSelector=, so the console's filter box accepts
// what kubectl accepts and rejects what it rejects. The console matches selectors itself (against
// rows already on screen) instead of asking the server again on each keystroke.
//
// Grammar, as the server reads it (whitespace between tokens is ignored):
//   selector    := "" | requirement ("," requirement)*
//   requirement := key | "!" key | key ("=" | "==" | "!=") value? | key (">" | "<") integer
//                | key ("in" | "notin") "(" value? ("," value?)* ")"
// "in" and "notin" are keywords only where an operator is expected; as a key or value they are
// plain words. Keys are qualified names ("prefix/name"), values label values (63 characters).
//
// Pure value type; safe to copy and to use from any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace console::model {

enum class LabelOperator {
  Equals,
  NotEquals,
  In,
  NotIn,
  Exists,
  DoesNotExist,
  GreaterThan,
  LessThan
};

struct LabelRequirement {
  std::string key;
  LabelOperator op = LabelOperator::Exists;
  // Sorted and unique. Empty for Exists and DoesNotExist; one value for =, ==, !=, > and <.
  std::vector<std::string> values;

  // `labels` is an object of string values (metadata.labels); null counts as no labels. A missing
  // key satisfies != and notin, like the server. > and < need the label to be an integer.
  bool matches(const nlohmann::json& labels) const;
};

class LabelSelector {
 public:
  // Parses `text`: the selector, or the error, one line naming the offending token or part, e.g.
  // "found ',', expected: !, identifier, or 'end of string'" or
  // "unable to parse requirement: found 'web', expected: '('".
  static common::Result<LabelSelector> parse(std::string_view text);

  // True when every requirement holds; the empty selector matches everything.
  bool matches(const nlohmann::json& labels) const;

  bool empty() const { return requirements_.empty(); }
  // True when some requirement uses an operator (=, !=, in, notin, !, >, <), i.e. the selector is
  // more than bare keys. The table filter uses it to tell "app=web" from a plain search word.
  bool has_operator() const;
  // In the order written.
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }

 private:
  std::vector<LabelRequirement> requirements_;
};

}  // namespace console::model
