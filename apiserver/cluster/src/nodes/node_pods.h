// The pods the nodes' controllers and kubelets look at: one by its work-queue key, and those
// bound to one node.
#pragma once

#include <string>
#include <vector>

#include "client/informer.h"

namespace cluster {

// The pod of `key` ("ns/name") in the informer's cache, or null.
ObjectPtr pod_by_key(const Informer& pods, const std::string& key);

// The pods whose spec.nodeName is `node`.
std::vector<ObjectPtr> pods_on_node(const Informer& pods, const std::string& node);

}  // namespace cluster
