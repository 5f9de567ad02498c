// Go's rendering of text inside kube-apiserver's error messages: strconv.Quote (%q), and the UTF-8
// helpers it rests on. One implementation for every error text that quotes a value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace apiserver::registry {

// Decodes one UTF-8 sequence at s[i]; invalid input yields U+FFFD with width 1, as Go's range
// loop over a string does.
char32_t decode_rune(std::string_view s, size_t i, size_t& width);
void append_utf8(std::string& out, char32_t r);
// Go's strconv.Quote (the %q verb) of a string.
std::string go_quote(std::string_view s);
// A string as Go's encoding/json writes it: quoted, with <, > and & escaped as \u003c, \u003e
// and \u0026 (its HTML-safe default).
std::string go_json_string(const std::string& s);
// Go's strings.Join.
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// The word encoding/json's UnmarshalTypeError uses for a JSON value: object, array, string,
// bool, null or number ("json: cannot unmarshal <word> into Go value of type ...").
std::string go_json_kind(const nlohmann::json& value);
// fmt's %v (sharp: %#v) of a value decoded from JSON into interface{}: map[a:1 b:[x y]] or
// map[string]interface {}{"a":1, "b":[]interface {}{"x", "y"}}.
std::string go_print(const nlohmann::json& value, bool sharp);

}  // namespace apiserver::registry
