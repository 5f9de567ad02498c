// Go's text for several errors reported as one: apimachinery's aggregate error (utilerrors),
// which kube-apiserver and the controllers print for authentication failures and failed deletes.
#pragma once

#include <string>
#include <vector>

namespace common {

// The errors as an aggregate prints them: repeated texts once, a lone error as it is, several as
// "[a, b]"; "" for none. Pure; callable from any thread.
std::string go_aggregate(const std::vector<std::string>& errors);

}  // namespace common
