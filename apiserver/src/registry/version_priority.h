// Kubernetes' version priority (apimachinery's CompareKubeAwareVersionStrings), the order in
// which discovery lists a group's versions and picks the preferred one: GA before beta before
// alpha, then the higher major, then the higher minor; versions that are not of the form
// v<major>[alpha|beta<minor>] come after all that are, in alphabetical order.
// Example: v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2, foo1, foo10.
#pragma once

#include <string>
#include <vector>

namespace apiserver::registry {

// > 0 when `a` has the higher priority, < 0 when `b` has, 0 when they are equal.
int compare_version_priority(const std::string& a, const std::string& b);

// Sorts `versions` highest priority first.
void sort_by_version_priority(std::vector<std::string>& versions);

}  // namespace apiserver::registry
