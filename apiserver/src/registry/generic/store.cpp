// The generic store's construction: one instance of each kind's write hooks, and their start-up
// load of what is stored. create.cpp, update.cpp and delete.cpp hold the writes.
#include "registry/generic/store.h"

#include "registry/kind_strategy.h"

namespace apiserver::registry {

GenericStore::GenericStore(storage::Storage& storage, const common::Clock& clock,
                           MarkedForDeletion marked, const WriteHooksOptions& hooks)
    : storage_(storage), clock_(clock), marked_(std::move(marked)) {
  for (const KindStrategy& strategy : kind_strategies()) {
    if (strategy.make_write_hooks != nullptr) {
      hooks_.emplace_back(std::pair(strategy.group, strategy.kind),
                          strategy.make_write_hooks(hooks));
    }
  }
}

GenericStore::~GenericStore() = default;

void GenericStore::load(const Snapshot& snapshot) {
  for (auto& [kind, hooks] : hooks_) {
    const Resource* row = nullptr;
    for (const Resource& r : snapshot.resources()) {
      if (r.group == kind.first && r.kind == kind.second && !r.etcd_prefix.empty()) {
        row = &r;
        break;
      }
    }
    storage::ListResult stored;
    if (row == nullptr || storage_.list(row->etcd_prefix + "/", "", 0, 0, stored)) {
      continue;
    }
    std::vector<nlohmann::json> objects;
    objects.reserve(stored.items.size());
    for (const auto& item : stored.items) {
      objects.push_back(nlohmann::json::parse(item.value, nullptr, false));
    }
    hooks->load(objects);
  }
}

WriteHooks* GenericStore::hooks_for(const Resource& r) const {
  if (r.custom) {
    return nullptr;
  }
  for (const auto& [kind, hooks] : hooks_) {
    if (kind.first == r.group && kind.second == r.kind) {
      return hooks.get();
    }
  }
  return nullptr;
}

}  // namespace apiserver::registry
