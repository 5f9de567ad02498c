// The Accept header: a list of media ranges, each a media type and its parameters
// ("application/json;as=Table;v=v1;g=meta.k8s.io, application/json").
//
//   parse_accept       the ranges in the order kube-apiserver negotiates them (goautoneg's
//                      ParseAccept), for discovery and OpenAPI, which take the first that fits
//   accepted_encoding  json, yaml or nothing (406) for a resource response
//   wants_table        whether a get or list is to be answered as a meta.k8s.io/v1 Table
//
// The last two look at every range without ordering by q (any range that fits counts).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace apiserver::endpoints {

// One media range as goautoneg reads it.
struct MediaRange {
  std::string type;     // "application", or "*"
  std::string subtype;  // "json", or "*"
  double q = 1.0;
  // The other parameters; a later one with the same name replaces an earlier one.
  std::map<std::string, std::string, std::less<>> params;

  // The value of parameter `key`, or nullptr.
  const std::string* param(std::string_view key) const;
};

// The media ranges of `header` as goautoneg's ParseAccept reads them, which kube-apiserver's
// negotiation and kube-openapi's handlers use:
//   - ranges are split at ',' and trimmed of spaces (not tabs);
//   - the media type is the text before the first ';'. Without a '/' (or with nothing after it)
//     the range is dropped unless it is "*", which means "*/*"; with a second '/' it is dropped
//     (goautoneg ignores one that ends the text: "a/b/" is a/b). Type and subtype are trimmed of
//     spaces and kept as sent (no case folding);
//   - parameters are "key=value" after each ';'. One without '=', with nothing after the '=' or
//     with a second '=' (but for one that ends it) is dropped; keys and values are trimmed of
//     spaces, except q's value, which accept_quality() reads as it is ("q= 0.5" is 0);
//   - q=0 does not drop a range: it is ordered last and may still be chosen, as upstream;
//   - ranges are ordered by q (highest first), then a concrete type before "*", then a concrete
//     subtype before "*", keeping the header's order among equals.
// goautoneg's own comparison also lets a concrete range pass a wildcard of higher q written
// before it; that comparison is no strict weak order (Go's result depends on its sort
// algorithm), and this order does not keep that quirk.
std::vector<MediaRange> parse_accept(std::string_view header);

// "json" when the header is empty or a range is application/json, application/* or */*; else
// "yaml" when a range is application/yaml; else "" (nothing the server can answer with).
// Parameters (q among them) do not count.
std::string accepted_encoding(std::string_view header);

// A range's quality parameter (the text after "q="), read as goautoneg reads it with Go's
// strconv.ParseFloat(text, 32): "1", "0.5", ".5", "+1", "5e-1" and "inf" are numbers, rounded to
// float32 (beyond its range: infinity); anything else, blanks around the number included, is 0,
// as goautoneg keeps ParseFloat's zero on an error. Two deliberate gaps: NaN (which Go accepts)
// reads as 0 so that ranges stay ordered, and so do hexadecimal forms ("0x1p-1") and numbers
// beyond double's range.
double accept_quality(std::string_view text);

// Whether a range asks for a Table as kubectl get does: as=Table, g=meta.k8s.io and v=v1, with
// any media type.
bool wants_table(std::string_view header);

}  // namespace apiserver::endpoints
