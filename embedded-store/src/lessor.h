// Lease state: granted leases, their deadlines and the keys attached to each. The commit loop
// changes it only after a batch is durable; readers (time-to-live, list, expiry scan) take mu_.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "store/types.h"

namespace store {

using WallTime = std::chrono::system_clock::time_point;

struct Lease {
  int64_t ttl = 0;  // granted TTL, seconds
  WallTime deadline;
  std::set<std::string> keys;
};

class Lessor {
 public:
  bool contains(LeaseId id) const;
  std::optional<Lease> get(LeaseId id) const;
  std::vector<LeaseId> ids() const;
  // Leases whose deadline is at or before `now`.
  std::vector<LeaseId> expired(WallTime now) const;

  void grant(LeaseId id, int64_t ttl, WallTime deadline);
  void revoke(LeaseId id);
  void renew(LeaseId id, WallTime deadline);
  // Moves `key` from lease `from` to lease `to` (0 = none).
  void attach(const std::string& key, LeaseId from, LeaseId to);

 private:
  mutable std::mutex mu_;  // protects leases_
  std::map<LeaseId, Lease> leases_;
};

}  // namespace store
