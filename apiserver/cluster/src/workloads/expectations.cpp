#include "workloads/expectations.h"

#include "client/objects.h"

namespace cluster {
namespace {

constexpr auto kExpectationsTimeout = std::chrono::minutes(5);

}  // namespace

void PodExpectations::expect(const std::string& key, std::set<std::string> creating,
                             std::set<std::string> deleting) {
  if (creating.empty() && deleting.empty()) {
    return;
  }
  std::lock_guard lock(mu_);
  pending_[key] = {std::move(creating), std::move(deleting), std::chrono::steady_clock::now()};
}

bool PodExpectations::satisfied(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = pending_.find(key);
  if (it == pending_.end()) {
    return true;
  }
  Pending& p = it->second;
  const std::string ns = key.substr(0, key.find('/'));
  std::erase_if(p.creating,
                [&](const std::string& name) { return pods_.get(ns, name) != nullptr; });
  std::erase_if(p.deleting, [&](const std::string& name) {
    ObjectPtr pod = pods_.get(ns, name);
    return pod == nullptr || being_deleted(*pod);
  });
  if ((p.creating.empty() && p.deleting.empty()) ||
      std::chrono::steady_clock::now() - p.since > kExpectationsTimeout) {
    pending_.erase(it);
    return true;
  }
  return false;
}

void PodExpectations::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  pending_.erase(key);
}

}  // namespace cluster
