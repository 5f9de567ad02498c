#include "common/go_errors.h"

#include <algorithm>

namespace common {

std::string go_aggregate(const std::vector<std::string>& errors) {
  std::vector<std::string> seen;
  for (const auto& error : errors) {
    if (std::find(seen.begin(), seen.end(), error) == seen.end()) {
      seen.push_back(error);
    }
  }
  if (seen.size() == 1) {
    return seen.front();
  }
  std::string out;
  for (const auto& error : seen) {
    out += (out.empty() ? "[" : ", ") + error;
  }
  return seen.empty() ? out : out + "]";
}

}  // namespace common
