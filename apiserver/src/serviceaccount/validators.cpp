// What both validators share: the account's user, the object reads, the UTC date.
#include "serviceaccount/validators.h"

#include "common/go_quote.h"
#include "common/rfc3339.h"
#include "registry/json_access.h"
#include "serviceaccount/object_lookup.h"

namespace apiserver::serviceaccount {

filters::UserInfo ServiceAccountInfo::user_info() const {
  filters::UserInfo user;
  user.name = service_account_username(namespace_, name);
  user.uid = uid;
  user.groups = {"system:serviceaccounts", "system:serviceaccounts:" + namespace_};
  if (!pod_name.empty() && !pod_uid.empty()) {
    user.extra["authentication.kubernetes.io/pod-name"] = {pod_name};
    user.extra["authentication.kubernetes.io/pod-uid"] = {pod_uid};
  }
  if (!credential_id.empty()) {
    user.extra["authentication.kubernetes.io/credential-id"] = {credential_id};
  }
  if (!node_name.empty()) {
    user.extra["authentication.kubernetes.io/node-name"] = {node_name};
    if (!node_uid.empty()) {
      user.extra["authentication.kubernetes.io/node-uid"] = {node_uid};
    }
  }
  return user;
}

std::string utc_date(std::chrono::system_clock::time_point when) {
  const int64_t seconds =
      std::chrono::duration_cast<std::chrono::seconds>(when.time_since_epoch()).count();
  // "2006-01-02T15:04:05Z" cut after the date.
  return common::format_rfc3339(seconds).value_or("0000-00-00T").substr(0, 10);
}

common::Result<nlohmann::json> lookup(const ObjectGetter& get, const std::string& resource,
                                      const std::string& ns, const std::string& name) {
  auto found = get(resource, ns, name);
  if (!found) {
    return common::Result<nlohmann::json>::failure(found.error());
  }
  if (!*found) {
    return common::Result<nlohmann::json>::failure(resource + " " + common::go_quote(name) +
                                                   " not found");
  }
  return std::move(**found);
}

std::string uid_of(const nlohmann::json& object) {
  return registry::string_at(object, {"metadata", "uid"});
}

bool being_deleted(const nlohmann::json& object,
                   std::optional<std::chrono::system_clock::time_point> cutoff) {
  const std::string stamp = registry::string_at(object, {"metadata", "deletionTimestamp"});
  if (stamp.empty()) {
    return false;
  }
  if (!cutoff) {
    return true;
  }
  auto parsed = common::parse_rfc3339(stamp);
  if (!parsed) {
    return false;
  }
  // Whole seconds against a time with a fraction: before it when before its next whole second.
  const auto since_epoch = cutoff->time_since_epoch();
  const auto whole = std::chrono::floor<std::chrono::seconds>(since_epoch);
  const int64_t bound = whole.count() + (since_epoch > whole ? 1 : 0);
  return parsed->seconds < bound;
}

}  // namespace apiserver::serviceaccount
