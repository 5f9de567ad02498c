#include "member.h"

#include <algorithm>

#include "common/guard.h"
#include "wire_status.h"

namespace etcdwire {

namespace {

// FNV-1a, 64 bits: stable IDs from names (etcd derives them from its peer URLs and cluster token).
uint64_t fnv1a(const std::string& text) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash == 0 ? 1 : hash;  // 0 means "no member" in etcd's messages
}

}  // namespace

Member::Member(store::Store& store, std::string name)
    : store_(store),
      name_(std::move(name)),
      member_id_(fnv1a("kube-sandbox member " + name_)),
      cluster_id_(fnv1a("kube-sandbox cluster " + name_)) {}

std::vector<std::string> Member::client_urls() const {
  std::lock_guard lock(mutex_);
  if (client_url_.empty()) {
    return {};
  }
  return {client_url_};
}

void Member::set_client_url(std::string url) {
  std::lock_guard lock(mutex_);
  client_url_ = std::move(url);
}

void Member::fill(etcdserverpb::ResponseHeader& header, store::Revision revision) const {
  header.set_cluster_id(cluster_id_);
  header.set_member_id(member_id_);
  header.set_raft_term(kRaftTerm);
  header.set_revision(revision != 0 ? revision : store_.current_revision());
}

std::vector<std::pair<uint64_t, etcdserverpb::AlarmType>> Member::alarms() const {
  std::lock_guard lock(mutex_);
  return alarms_;
}

std::vector<std::pair<uint64_t, etcdserverpb::AlarmType>> Member::set_alarm(
    uint64_t member, etcdserverpb::AlarmType type, bool active) {
  std::lock_guard lock(mutex_);
  std::pair<uint64_t, etcdserverpb::AlarmType> alarm{member, type};
  auto found = std::find(alarms_.begin(), alarms_.end(), alarm);
  if (active && found == alarms_.end()) {
    alarms_.push_back(alarm);
    return {alarm};
  }
  if (!active && found != alarms_.end()) {
    alarms_.erase(found);
    return {alarm};
  }
  return {};
}

grpc::Status Member::writable() const {
  std::lock_guard lock(mutex_);
  for (const auto& alarm : alarms_) {
    if (alarm.second == etcdserverpb::NOSPACE) {
      return no_space_error();
    }
  }
  return grpc::Status::OK;
}

grpc::Status guarded(const std::function<grpc::Status()>& body) {
  grpc::Status result;
  std::string failure;
  bool ran = common::run_guarded([&] { result = body(); },
                                 [&](std::string&& text) { failure = std::move(text); });
  if (!ran) {
    return {grpc::StatusCode::INTERNAL, "etcdserver: internal error: " + failure};
  }
  return result;
}

}  // namespace etcdwire
