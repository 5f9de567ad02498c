// Fuzz input read as a JSON request body, the way kube-apiserver's decoder accepts one: any JSON
// text nested at most kMaxJsonNesting deep (Go's encoding/json refuses deeper text), so that a
// target reaches the code behind the decoder with every input the decoder lets through.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace fuzz {

// Go's encoding/json nesting limit (scanner maxNestingDepth), which kube-apiserver inherits.
inline constexpr int kMaxJsonNesting = 10000;

// nullopt when `text` is not JSON or nests deeper than kMaxJsonNesting.
std::optional<nlohmann::json> parse_json_input(std::string_view text);

}  // namespace fuzz
