#include "nodes/node_pods.h"

#include "client/objects.h"

namespace cluster {

ObjectPtr pod_by_key(const Informer& pods, const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos) {
    return nullptr;
  }
  return pods.get(key.substr(0, slash), key.substr(slash + 1));
}

std::vector<ObjectPtr> pods_on_node(const Informer& pods, const std::string& node) {
  std::vector<ObjectPtr> out;
  for (ObjectPtr& pod : pods.list()) {
    if (string_at(*pod, {"spec", "nodeName"}) == node) {
      out.push_back(std::move(pod));
    }
  }
  return out;
}

}  // namespace cluster
