#include "registry/go_regexp.h"

#include <re2/re2.h>

namespace apiserver::registry {
namespace {

// Per pattern: RE2's default is 8 MiB; a CRD may carry many patterns, and Go's own limit on a
// program's size rejects patterns far smaller than this allows.
constexpr int64_t kMaxMemory = 1 << 20;

// regexp/syntax's ErrorCode texts for RE2's error codes.
const char* go_error_code(re2::RE2::ErrorCode code) {
  switch (code) {
    case re2::RE2::ErrorBadEscape:
      return "invalid escape sequence";
    case re2::RE2::ErrorBadCharClass:
      return "invalid character class";
    case re2::RE2::ErrorBadCharRange:
      return "invalid character class range";
    case re2::RE2::ErrorMissingBracket:
      return "missing closing ]";
    case re2::RE2::ErrorMissingParen:
      return "missing closing )";
    case re2::RE2::ErrorUnexpectedParen:
      return "unexpected )";
    case re2::RE2::ErrorTrailingBackslash:
      return "trailing backslash at end of expression";
    case re2::RE2::ErrorRepeatArgument:
      return "missing argument to repetition operator";
    case re2::RE2::ErrorRepeatSize:
      return "invalid repeat count";
    case re2::RE2::ErrorRepeatOp:
      return "invalid nested repetition operator";
    case re2::RE2::ErrorBadPerlOp:
      return "invalid or unsupported Perl syntax";
    case re2::RE2::ErrorBadUTF8:
      return "invalid UTF-8";
    case re2::RE2::ErrorBadNamedCapture:
      return "invalid named capture";
    case re2::RE2::ErrorPatternTooLarge:
      return "expression too large";
    default:
      return "regexp/syntax: internal error";
  }
}

}  // namespace

common::Result<GoRegexp> GoRegexp::compile(const std::string& pattern) {
  re2::RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(kMaxMemory);
  auto re = std::make_shared<const re2::RE2>(pattern, options);
  if (!re->ok()) {
    // Go prints the offending fragment in backquotes; for a too large program, the whole pattern.
    const std::string& arg =
        re->error_code() == re2::RE2::ErrorPatternTooLarge ? pattern : re->error_arg();
    return std::string("error parsing regexp: ") + go_error_code(re->error_code()) + ": `" + arg +
           "`";
  }
  GoRegexp out;
  out.re_ = std::move(re);
  return out;
}

bool GoRegexp::matches(std::string_view s) const {
  return re2::RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *re_);
}

}  // namespace apiserver::registry
