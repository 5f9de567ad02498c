// The string formats of a CRD's structural schema, as apiextensions-apiserver v1.32 keeps them
// (unsupported formats are stripped) and kube-openapi's strfmt registry checks them. The checks
// are hand-written scanners equivalent to strfmt's regexes.
#pragma once

#include <string>
#include <string_view>

namespace apiserver::registry {

// Whether apiextensions keeps `format` (names compared without '-', as go-openapi does).
bool is_supported_format(const std::string& format);

// Whether `s` satisfies a supported format: date-time, date, byte, uuid, uuid3/4/5 are checked;
// the other supported formats pass unchecked.
bool format_valid(const std::string& format, std::string_view s);

}  // namespace apiserver::registry
