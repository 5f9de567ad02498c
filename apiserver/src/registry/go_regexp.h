// Go's regexp (RE2 syntax, linear-time matching) on RE2, for patterns a client sends: a CRD
// schema's `pattern`. Compile errors are worded as Go's regexp/syntax words them, e.g.
// `error parsing regexp: missing argument to repetition operator: `+``.
//
// Threads: a GoRegexp is immutable after compile(); matches() may be called from any thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

namespace re2 {
class RE2;
}

namespace apiserver::registry {

class GoRegexp {
 public:
  // regexp.Compile. Fails with Go's error text when RE2 rejects the pattern (including one whose
  // program would need more than the memory bound).
  static common::Result<GoRegexp> compile(const std::string& pattern);

  // regexp.MatchString: whether the pattern matches anywhere in `s` (unanchored).
  bool matches(std::string_view s) const;

 private:
  GoRegexp() = default;
  std::shared_ptr<const re2::RE2> re_;
};

}  // namespace apiserver::registry
