// Which fields a step changed in an object: the request trace names the fields defaulting set.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace apiserver::registry {

// The paths, in Go's field path notation (spec.template.spec.containers[0].imagePullPolicy), of
// the values `after` has that `before` lacks or holds otherwise; a new object or list is one
// path. Removed values are not listed. At most `limit` paths, in the documents' order; `more`
// (when given) counts the ones left out. Iterative: objects nest as deep as clients send them;
// below 64 levels a change is named by its ancestor at that depth, followed by "...".
std::vector<std::string> changed_paths(const nlohmann::json& before, const nlohmann::json& after,
                                       size_t limit, size_t* more = nullptr);

}  // namespace apiserver::registry
