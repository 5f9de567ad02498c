// Text without the blanks around it, as HTTP header values are read (optional whitespace: spaces
// and tabs by default).
#pragma once

#include <string_view>

namespace common {

inline std::string_view trim(std::string_view s, std::string_view blanks = " \t") {
  const std::size_t begin = s.find_first_not_of(blanks);
  if (begin == std::string_view::npos) {
    return {};
  }
  return s.substr(begin, s.find_last_not_of(blanks) - begin + 1);
}

}  // namespace common
