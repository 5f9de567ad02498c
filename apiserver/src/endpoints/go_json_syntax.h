// The syntax check Go's encoding/json runs over a whole document before it decodes anything, with
// the SyntaxError texts kube-apiserver passes on to clients:
//
//   invalid character 'n' looking for beginning of object key string
//   invalid character '}' after array element
//   invalid character ' ' in literal true (expecting 'e')        (the end of input inside "tru")
//   invalid character '[' exceeded max depth                     (nesting deeper than 10,000)
//   unexpected end of JSON input
//
// A byte is quoted as Go quotes it: as the code point of the same value ('é' for 0xE9, '\x00',
// '\u0085'), since the scanner reads bytes, not runes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "registry/walk_depth.h"

namespace apiserver::endpoints {

// Go's limit on nested arrays and objects.
inline constexpr size_t kGoMaxNestingDepth = registry::kMaxNestingDepth;

// nullopt when `data` is exactly one JSON value with optional white space around it; else Go's
// text for the first error. Iterative; time linear in the input, memory linear in the depth.
std::optional<std::string> go_json_syntax_error(std::string_view data);

// Go's quoteChar: the byte in single quotes, escaped like strconv.Quote.
std::string go_quote_char(unsigned char c);

}  // namespace apiserver::endpoints
