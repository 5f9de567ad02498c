// The one member an endpoint presents (IDs, name, URLs), how it stamps response headers, and
// its alarms: what every service of the endpoint shares.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <grpcpp/support/status.h>

#include "etcdserverpb/rpc.pb.h"
#include "store/store.h"

namespace etcdwire {

// The etcd release whose v3 API behaviour the endpoint follows; Status reports it.
inline constexpr const char* kEtcdVersion = "3.5.17";
// No Raft: one member, one term.
inline constexpr uint64_t kRaftTerm = 1;

class Member {
 public:
  Member(store::Store& store, std::string name);

  store::Store& store() const { return store_; }
  uint64_t member_id() const { return member_id_; }
  uint64_t cluster_id() const { return cluster_id_; }
  const std::string& name() const { return name_; }
  std::vector<std::string> client_urls() const;
  void set_client_url(std::string url);

  // Cluster and member IDs, raft term, and `revision` (the store's current one when 0).
  void fill(etcdserverpb::ResponseHeader& header, store::Revision revision = 0) const;

  // Alarms as etcd keeps them, per member and type. An active NOSPACE refuses writes.
  std::vector<std::pair<uint64_t, etcdserverpb::AlarmType>> alarms() const;
  // Activates (true) or deactivates an alarm; returns the alarms it changed.
  std::vector<std::pair<uint64_t, etcdserverpb::AlarmType>> set_alarm(uint64_t member,
                                                                      etcdserverpb::AlarmType type,
                                                                      bool active);
  // OK, or etcd's "database space exceeded" while NOSPACE is active.
  grpc::Status writable() const;

 private:
  store::Store& store_;
  std::string name_;
  uint64_t member_id_;
  uint64_t cluster_id_;
  mutable std::mutex mutex_;
  std::string client_url_;
  std::vector<std::pair<uint64_t, etcdserverpb::AlarmType>> alarms_;
};

// Runs a handler body behind the exception barrier: an exception becomes INTERNAL with its text.
grpc::Status guarded(const std::function<grpc::Status()>& body);

}  // namespace etcdwire
