// The Accept header as the resource handlers read it: a list of media ranges, each a media type
// and its parameters ("application/json;as=Table;v=v1;g=meta.k8s.io, application/json"). What
// the server answers with is decided from that list in one place:
//
//   accepted_encoding  json, yaml or nothing (406) for a resource response
//   wants_table        whether a get or list is to be answered as a meta.k8s.io/v1 Table
//
// Discovery and OpenAPI negotiate with goautoneg's ordering by q (discovery.cpp, openapi_http.cpp).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace apiserver::endpoints {

struct AcceptRange {
  std::string media_type;  // "application/json": as sent, without surrounding blanks
  // "key=value" parameters in the order sent, keys and values without surrounding blanks;
  // a parameter without '=' has an empty value.
  std::vector<std::pair<std::string, std::string>> params;

  // The value of the first parameter named `key`, or nullptr.
  const std::string* param(std::string_view key) const;
};

// Splits `header` at ',' and each range at ';'. Every range is kept in order, empty ones
// included, without ordering by q (the callers below take the first match or any match).
std::vector<AcceptRange> parse_accept(std::string_view header);

// "json" when the header is empty or a range is application/json, application/* or */*; else
// "yaml" when a range is application/yaml; else "" (nothing the server can answer with).
// Parameters (q among them) do not count.
std::string accepted_encoding(std::string_view header);

// A range's quality parameter (the text after "q="), read as Go's strconv.ParseFloat reads it
// ("1", "0.5", ".5", "+1", "5e-1"; blanks around it ignored); 0 when it is not wholly a number,
// as goautoneg keeps ParseFloat's zero on an error.
double accept_quality(std::string_view text);

// Whether a range asks for a Table as kubectl get does: as=Table, g=meta.k8s.io and v=v1, with
// any media type.
bool wants_table(std::string_view header);

}  // namespace apiserver::endpoints
