// Go's rendering of text inside kube-apiserver's error messages: encoding/json strings, fmt's %v,
// strings.Join; strconv.Quote (%q) and its UTF-8 helpers come from common/go_quote.h.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/go_quote.h"

namespace apiserver::registry {

// Go's strconv.Quote (the %q verb) and the UTF-8 steps under it live in the common library; these
// names keep the registry's Go-text vocabulary in one place for its callers.
using common::append_utf8;
using common::decode_rune;
using common::go_quote;

// A string as Go's encoding/json writes it: quoted, with <, > and & escaped as \u003c, \u003e
// and \u0026 (its HTML-safe default).
std::string go_json_string(const std::string& s);
// JSON text with the escapes encoding/json adds to what it writes: <, >, & (as above) and the
// line and paragraph separators U+2028 and U+2029 as \u2028 and \u2029.
std::string go_json_escape(std::string_view json_text);
// The deepest nesting of arrays and objects in JSON text, counted outside strings; linear, for
// refusing text before a recursive parser sees it.
std::size_t json_text_depth(std::string_view text);
// Go's utf8.RuneCountInString: each byte of invalid UTF-8 counts as one rune. Both places that
// count runes upstream use it: kube-openapi's maxLength/minLength check and the apiserver's
// warning recorder.
std::size_t rune_count(std::string_view s);
// Go's string([]rune(s)[:runes]): the first `runes` runes of `s` (all of them when it has
// fewer), each byte of invalid UTF-8 among them written as U+FFFD.
std::string first_runes(std::string_view s, std::size_t runes);
// Go's strings.Join.
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// The word encoding/json's UnmarshalTypeError uses for a JSON value: object, array, string,
// bool, null or number ("json: cannot unmarshal <word> into Go value of type ...").
std::string go_json_kind(const nlohmann::json& value);
// fmt's %v (sharp: %#v) of a value decoded from JSON into interface{}: map[a:1 b:[x y]] or
// map[string]interface {}{"a":1, "b":[]interface {}{"x", "y"}}.
std::string go_print(const nlohmann::json& value, bool sharp);

}  // namespace apiserver::registry
