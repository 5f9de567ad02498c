// The name and label checks of k8s.io/apimachinery/pkg/util/validation (v0.32), as hand-written
// linear scanners: upstream matches regexes; a backtracking regex engine on a client's 500 kB
// name would recurse once per character. Each *_problems function returns one message per problem
// with upstream's text (lengths first, then the regex text upstream prints), empty when valid.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace apiserver::registry {

// Anchored matches of upstream's regexes.
bool matches_dns1123_label(std::string_view s);      // [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool matches_dns1123_subdomain(std::string_view s);  // labels joined by '.'
bool matches_dns1035_label(std::string_view s);      // [a-z]([-a-z0-9]*[a-z0-9])?
bool matches_qualified_name(std::string_view s);     // ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]

// validation.RegexError: `<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')`.
std::string regex_error(std::string_view msg, std::string_view fmt,
                        std::initializer_list<std::string_view> examples);
// validation.MaxLenError.
std::string max_len_error(size_t length);

std::vector<std::string> dns1123_label_problems(std::string_view value);      // IsDNS1123Label
std::vector<std::string> dns1123_subdomain_problems(std::string_view value);  // IsDNS1123Subdomain
std::vector<std::string> dns1035_label_problems(std::string_view value);      // IsDNS1035Label
std::vector<std::string> label_key_problems(std::string_view key);            // IsQualifiedName
std::vector<std::string> label_value_problems(std::string_view value);        // IsValidLabelValue
std::vector<std::string> config_map_key_problems(std::string_view key);       // IsConfigMapKey
std::vector<std::string> port_name_problems(std::string_view name);           // IsValidPortName

}  // namespace apiserver::registry
