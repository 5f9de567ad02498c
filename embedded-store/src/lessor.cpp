#include "lessor.h"

namespace store {

bool Lessor::contains(LeaseId id) const {
  std::lock_guard lock(mu_);
  return leases_.count(id) != 0;
}

std::optional<Lease> Lessor::get(LeaseId id) const {
  std::lock_guard lock(mu_);
  auto it = leases_.find(id);
  if (it == leases_.end()) {
    return std::nullopt;
  }
  return it->second;
}

std::vector<LeaseId> Lessor::ids() const {
  std::lock_guard lock(mu_);
  std::vector<LeaseId> out;
  for (const auto& [id, lease] : leases_) {
    out.push_back(id);
  }
  return out;
}

std::vector<LeaseId> Lessor::expired(WallTime now) const {
  std::lock_guard lock(mu_);
  std::vector<LeaseId> out;
  for (const auto& [id, lease] : leases_) {
    if (lease.deadline <= now) {
      out.push_back(id);
    }
  }
  return out;
}

void Lessor::grant(LeaseId id, int64_t ttl, WallTime deadline) {
  std::lock_guard lock(mu_);
  leases_[id] = Lease{ttl, deadline, {}};
}

void Lessor::revoke(LeaseId id) {
  std::lock_guard lock(mu_);
  leases_.erase(id);
}

void Lessor::renew(LeaseId id, WallTime deadline) {
  std::lock_guard lock(mu_);
  if (auto it = leases_.find(id); it != leases_.end()) {
    it->second.deadline = deadline;
  }
}

void Lessor::attach(const std::string& key, LeaseId from, LeaseId to) {
  std::lock_guard lock(mu_);
  if (from != 0) {
    if (auto it = leases_.find(from); it != leases_.end()) {
      it->second.keys.erase(key);
    }
  }
  if (to != 0) {
    if (auto it = leases_.find(to); it != leases_.end()) {
      it->second.keys.insert(key);
    }
  }
}

}  // namespace store
