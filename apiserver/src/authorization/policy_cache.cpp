#include "authorization/policy_cache.h"

#include "registry/json_access.h"

namespace apiserver::authorization {
namespace {

using nlohmann::json;

const char* const kClusterRoles = "/registry/clusterroles/";
const char* const kClusterRoleBindings = "/registry/clusterrolebindings/";
const char* const kRoles = "/registry/roles/";
const char* const kRoleBindings = "/registry/rolebindings/";

// "<ns>/<name>" of a namespaced key's rest, split.
std::pair<std::string, std::string> split_rest(std::string_view rest) {
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) {
    return {"", std::string(rest)};
  }
  return {std::string(rest.substr(0, slash)), std::string(rest.substr(slash + 1))};
}

template <class T>
void put_or_erase(std::map<std::string, std::shared_ptr<const T>, std::less<>>& map,
                  const std::string& name, std::shared_ptr<const T> value) {
  if (value) {
    map[name] = std::move(value);
  } else {
    map.erase(name);
  }
}

}  // namespace

Role role_from_json(const json& object) {
  const json& meta = registry::value_at(object, {"metadata"});
  return {registry::string_at(meta, {"namespace"}), registry::string_at(meta, {"name"}),
          rules_from_json(registry::value_at(object, {"rules"})),
          registry::value_at(meta, {"labels"}), registry::value_at(object, {"aggregationRule"})};
}

Binding binding_from_json(const json& object) {
  const json& meta = registry::value_at(object, {"metadata"});
  const json& ref = registry::value_at(object, {"roleRef"});
  Binding b{registry::string_at(meta, {"namespace"}),
            registry::string_at(meta, {"name"}),
            {registry::string_at(ref, {"apiGroup"}), registry::string_at(ref, {"kind"}),
             registry::string_at(ref, {"name"})},
            {}};
  const json& subjects = registry::value_at(object, {"subjects"});
  if (subjects.is_array()) {
    for (const auto& s : subjects) {
      b.subjects.push_back({registry::string_at(s, {"kind"}), registry::string_at(s, {"apiGroup"}),
                            registry::string_at(s, {"name"}),
                            registry::string_at(s, {"namespace"})});
    }
  }
  return b;
}

PolicyCache::PolicyCache(storage::Storage& storage)
    : policy_(std::make_shared<const Policy>()),
      follower_(
          storage, {kClusterRoles, kClusterRoleBindings, kRoles, kRoleBindings},
          [this](bool reset, const std::vector<ObjectChange>& changes) { apply(reset, changes); },
          "rbac policy cache") {}

PolicyCache::~PolicyCache() = default;

void PolicyCache::start() {
  follower_.start();
}

void PolicyCache::on_change(std::function<void()> listener) {
  listeners_.push_back(std::move(listener));
}

std::shared_ptr<const Policy> PolicyCache::current() {
  follower_.catch_up();
  return snapshot();
}

std::shared_ptr<const Policy> PolicyCache::snapshot() const {
  std::lock_guard lock(mu_);
  return policy_;
}

void PolicyCache::apply(bool reset, const std::vector<ObjectChange>& changes) {
  auto next = reset ? std::make_shared<Policy>() : std::make_shared<Policy>(*snapshot());
  for (const auto& change : changes) {
    const std::string& key = change.key;
    json object;
    if (!change.deleted) {
      object = json::parse(change.value, nullptr, false);
      if (!object.is_object()) {
        continue;  // not a stored object; nothing to authorize with
      }
    }
    auto role = [&]() -> std::shared_ptr<const Role> {
      return change.deleted ? nullptr : std::make_shared<const Role>(role_from_json(object));
    };
    auto binding = [&]() -> std::shared_ptr<const Binding> {
      return change.deleted ? nullptr : std::make_shared<const Binding>(binding_from_json(object));
    };
    if (key.starts_with(kClusterRoles)) {
      put_or_erase(next->cluster_roles, key.substr(std::string_view(kClusterRoles).size()), role());
    } else if (key.starts_with(kClusterRoleBindings)) {
      put_or_erase(next->cluster_role_bindings,
                   key.substr(std::string_view(kClusterRoleBindings).size()), binding());
    } else if (key.starts_with(kRoles)) {
      auto [ns, name] = split_rest(std::string_view(key).substr(std::string_view(kRoles).size()));
      put_or_erase(next->roles[ns], name, role());
      if (next->roles[ns].empty()) {
        next->roles.erase(ns);
      }
    } else if (key.starts_with(kRoleBindings)) {
      auto [ns, name] =
          split_rest(std::string_view(key).substr(std::string_view(kRoleBindings).size()));
      put_or_erase(next->role_bindings[ns], name, binding());
      if (next->role_bindings[ns].empty()) {
        next->role_bindings.erase(ns);
      }
    }
  }
  {
    std::lock_guard lock(mu_);
    policy_ = std::move(next);
  }
  for (const auto& listener : listeners_) {
    listener();
  }
}

}  // namespace apiserver::authorization
