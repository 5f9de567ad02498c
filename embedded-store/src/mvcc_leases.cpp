// MvccStore's leases: grant, revoke and keep-alive go through the commit loop; time-to-live and
// the list read the lessor; the lease timer revokes what expired.
#include "mvcc_store.h"

#include "guard.h"

namespace store {

Result<LeaseGrantResponse> MvccStore::lease_grant(const LeaseGrantRequest& request) {
  LeaseGrantResponse response;
  Status s = submit_apply([&](Batch& batch) {
    response = LeaseGrantResponse{};
    return batch.lease_grant(request, response);
  });
  if (!s.is_ok()) {
    return s;
  }
  return response;
}

Result<LeaseRevokeResponse> MvccStore::lease_revoke(LeaseId id) {
  LeaseRevokeResponse response;
  Status s = submit_apply([&](Batch& batch) {
    response = LeaseRevokeResponse{};
    return batch.lease_revoke(id, response);
  });
  if (!s.is_ok()) {
    return s;
  }
  return response;
}

Result<LeaseKeepAliveResponse> MvccStore::lease_keep_alive(LeaseId id) {
  LeaseKeepAliveResponse response;
  Status s = submit_apply([&](Batch& batch) {
    response = LeaseKeepAliveResponse{};
    return batch.lease_renew(id, response);
  });
  if (!s.is_ok()) {
    return s;
  }
  return response;
}

Result<LeaseTimeToLiveResponse> MvccStore::lease_time_to_live(LeaseId id, bool keys) {
  LeaseTimeToLiveResponse response;
  response.header.revision = current_rev_.load();
  response.id = id;
  auto lease = lessor_.get(id);
  if (!lease) {
    return response;  // ttl -1: unknown or already revoked, as etcd answers
  }
  auto left = std::chrono::duration_cast<std::chrono::seconds>(lease->deadline - clock_->now());
  response.ttl = left.count() >= 0 ? left.count() : -1;
  response.granted_ttl = lease->ttl;
  if (keys) {
    response.keys.assign(lease->keys.begin(), lease->keys.end());
  }
  return response;
}

Result<LeaseLeasesResponse> MvccStore::lease_leases() {
  LeaseLeasesResponse response;
  response.header.revision = current_rev_.load();
  for (LeaseId id : lessor_.ids()) {
    response.leases.push_back({id});
  }
  return response;
}

void MvccStore::expire_leases() {
  std::lock_guard lock(lease_mu_);
  for (LeaseId id : lessor_.expired(clock_->now())) {
    lease_revoke(id);  // LeaseNotFound if someone revoked it first: nothing left to do
  }
}

void MvccStore::expire_leases_for_test() {
  expire_leases();
}

void MvccStore::lease_loop() {
  while (true) {
    {
      std::unique_lock lock(lease_mu_);
      lease_cv_.wait_for(lock, options_.lease_check_interval, [&] { return lease_stop_; });
      if (lease_stop_) {
        return;
      }
    }
    run_guarded("lease timer", [&] { expire_leases(); });
  }
}

}  // namespace store
