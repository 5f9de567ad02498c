#include "registry/kind_strategy.h"

#include <algorithm>
#include <tuple>

#include "registry/kinds/kinds.h"

namespace apiserver::registry {
namespace {

bool before(const KindStrategy& a, const KindStrategy& b) {
  return std::tie(a.group, a.kind) < std::tie(b.group, b.kind);
}

// Sorted by (group, kind) so that a lookup allocates nothing.
std::vector<KindStrategy> all_strategies() {
  kinds::Strategies s;
  kinds::add_pods(s);
  kinds::add_workloads(s);
  kinds::add_batch(s);
  kinds::add_config(s);
  kinds::add_services(s);
  kinds::add_storage(s);
  kinds::add_rbac(s);
  kinds::add_networking(s);
  kinds::add_events(s);
  kinds::add_cluster(s);
  kinds::add_admission(s);
  kinds::add_control_plane(s);
  kinds::add_certificates(s);
  kinds::add_autoscaling(s);
  kinds::add_dynamic_resources(s);
  kinds::add_apiextensions(s);
  std::sort(s.begin(), s.end(), before);
  return s;
}

}  // namespace

const std::vector<KindStrategy>& kind_strategies() {
  static const std::vector<KindStrategy> kAll = all_strategies();
  return kAll;
}

const KindStrategy* kind_strategy(std::string_view group, std::string_view kind) {
  const std::vector<KindStrategy>& all = kind_strategies();
  KindStrategy key{.group = group, .kind = kind};
  auto it = std::lower_bound(all.begin(), all.end(), key, before);
  if (it == all.end() || it->group != group || it->kind != kind) {
    return nullptr;
  }
  return &*it;
}

}  // namespace apiserver::registry
