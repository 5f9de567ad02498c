// The JSON inside a token (its header and its claims), read as the Go code that reads tokens for
// kube-apiserver does: a bounded parse, then typed fields. A field of the wrong type fails the
// whole decode with encoding/json's text ("json: cannot unmarshal number into Go value of type
// string"); null leaves a field unset; unknown fields are ignored; key matching is exact.
//
// Nothing here throws or recurses over the input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace apiserver::serviceaccount {

using JoseJson = nlohmann::json;

// Go's limit on nested arrays and objects.
inline constexpr size_t kMaxJoseDepth = 10000;

// The document `text` holds, or why it is not one (nesting deeper than kMaxJoseDepth included).
// A repeated key keeps its last value.
common::Result<JoseJson> parse_jose_json(std::string_view text);

// A field's value by exact key, or nullptr when it is absent or null.
const JoseJson* field(const JoseJson& object, std::string_view key);

// The decode of one field into a Go type; each sets `error` (when still empty) on a mismatch, as
// encoding/json reports the first one.
struct JoseReader {
  std::string error;

  std::string string(const JoseJson& object, std::string_view key);
  // go-jose's NumericDate: any JSON number, truncated to whole seconds.
  std::optional<int64_t> numeric_date(const JoseJson& object, std::string_view key);
  // go-jose's Audience: a string or an array of strings.
  std::vector<std::string> audience(const JoseJson& object, std::string_view key);
  // An object field (a Go struct): nullptr when absent or null; a mismatch for other types.
  const JoseJson* object(const JoseJson& object, std::string_view key, std::string_view go_type);
};

// Go's encoding/json reading of an object's "iss" into a string field, as kube-apiserver peeks
// at a token's issuer before it verifies anything: the key "iss", else one that differs from it
// only in ASCII case. nullopt when `payload` is not an object or that value is neither a string
// nor null (null reads as "").
std::optional<std::string> peek_issuer(const JoseJson& payload);

}  // namespace apiserver::serviceaccount
