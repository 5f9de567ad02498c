#include "controllers/token_controller.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "apiserver/version.h"
#include "common/base64.h"
#include "controllers/controller_queue.h"
#include "controllers/controller_request.h"
#include "guard.h"
#include "registry/json_access.h"
#include "serviceaccount/claims.h"

namespace apiserver::controllers {
namespace {

using nlohmann::json;
using registry::string_at;

constexpr auto kRefollowDelay = std::chrono::seconds(1);
constexpr const char* kTokenType = "kubernetes.io/service-account-token";
constexpr const char* kNameAnnotation = "kubernetes.io/service-account.name";
constexpr const char* kUidAnnotation = "kubernetes.io/service-account.uid";
constexpr const char* kManager = "system:kube-controller-manager";
constexpr const char* kTrackingConfigMap = "kube-apiserver-legacy-service-account-token-tracking";
const std::string kSecrets = "/registry/secrets/";
const std::string kAccounts = "/registry/serviceaccounts/";
const std::string kConfigMaps = "/registry/configmaps/";
const std::string kTrackingKey = kConfigMaps + "kube-system/" + kTrackingConfigMap;

const std::string kSecretWork = "secret ";
const std::string kRemovedWork = "removed ";
const std::string kAccountWork = "account ";
const std::string kLastUsedWork = "last-used ";
const std::string kTrackingWork = "tracking";

// "<ns>/<name>" of a key under `root`.
std::string namespaced_name(const std::string& key, const std::string& root) {
  return key.compare(0, root.size(), root) == 0 ? key.substr(root.size()) : "";
}

// A request made as `user` (a verified client certificate would say the same).
http::Request request_as(const std::string& user, const std::vector<std::string>& groups,
                         const std::string& method, const std::string& path, const json& body,
                         const std::string& agent) {
  http::Request request = loopback_request(method, path, body, agent);
  request.user = user;
  request.groups = groups;
  request.groups.push_back("system:authenticated");
  request.client_certificate = http::ClientCertificate{user, groups};
  return request;
}

std::string manager_agent() {
  return "kube-controller-manager/" + version_info().git_version + " (sandbox)";
}

std::string apiserver_agent() {
  return "kube-apiserver/" + version_info().git_version + " (sandbox)";
}

std::optional<json> read_object(storage::Storage& storage, const std::string& key,
                                int64_t* revision = nullptr) {
  storage::Object stored;
  if (storage.get(key, stored)) {
    return std::nullopt;
  }
  json object = json::parse(stored.value, nullptr, false);
  if (!object.is_object()) {
    return std::nullopt;
  }
  if (revision != nullptr) {
    *revision = stored.mod_revision;
  }
  return object;
}

std::string decoded_data(const json& secret, const char* key) {
  return common::base64_decode(string_at(secret, {"data", key})).value_or("");
}

}  // namespace

TokenController::TokenController(storage::Storage& storage, Client client,
                                 const serviceaccount::ServiceAccountTokens& tokens,
                                 std::string root_ca_pem, const common::Clock& clock)
    : storage_(storage),
      client_(std::move(client)),
      tokens_(tokens),
      root_ca_pem_(std::move(root_ca_pem)),
      clock_(clock),
      queue_(queue_options(), clock) {}

TokenController::~TokenController() {
  stop_following(queue_, thread_, watchers_);
}

void TokenController::start() {
  watch_and_list();
  thread_ = std::thread([this] { run(); });
}

void TokenController::legacy_token_used(const std::string& ns, const std::string& name) {
  queue_.add(kLastUsedWork + ns + "/" + name);  // refused when full: due again on the next use
}

void TokenController::request_progress() {
  queue_.add(kProgressKey);
}

// Watch first, then list, as the other controllers do.
void TokenController::watch_and_list() {
  cancel_watches(watchers_);
  const int64_t from = storage_.current_revision() + 1;
  struct Followed {
    const std::string& root;
    const std::string& prefix;
    bool exact;
  };
  for (const Followed& f :
       {Followed{kSecrets, kSecrets, false}, Followed{kAccounts, kAccounts, false},
        Followed{kConfigMaps, kTrackingKey, true}}) {
    if (auto watcher = storage_.watch(f.root, f.prefix, f.exact, from)) {
      watcher->set_notify([this] { queue_.add(kFollowKey); });
      watchers_.push_back(std::move(watcher));
    }
  }
  queue_.add(kTrackingWork);
  storage::ListResult secrets;
  if (!storage_.list(kSecrets, "", 0, 0, secrets)) {
    for (const auto& item : secrets.items) {
      if (item.value.find(kTokenType) != std::string::npos) {
        queue_.add(kSecretWork + namespaced_name(item.key, kSecrets));
      }
    }
  }
  followed_each_.assign(watchers_.size(), from - 1);
  followed_ = from - 1;
}

void TokenController::drain_watches() {
  store::WatchResponse response;
  bool lost = false;
  followed_each_.resize(watchers_.size(), followed_);
  for (size_t i = 0; i < watchers_.size(); ++i) {
    while (watchers_[i]->try_next(response)) {
      lost = lost || response.canceled;
      if (!response.canceled) {
        followed_each_[i] = std::max(followed_each_[i], response.header.revision);
      }
      for (const auto& e : response.events) {
        const std::string& key = e.kv.key;
        if (key.rfind(kSecrets, 0) == 0) {
          if (e.type == store::Event::Type::Put) {
            if (e.kv.value.find(kTokenType) != std::string::npos) {
              queue_.add(kSecretWork + namespaced_name(key, kSecrets));
            }
          } else if (e.prev_kv) {
            // A token Secret gone: its account, if there, stops listing it.
            json gone = json::parse(e.prev_kv->value, nullptr, false);
            const std::string account =
                string_at(gone, {"metadata", "annotations", kNameAnnotation});
            if (string_at(gone, {"type"}) == kTokenType && !account.empty()) {
              queue_.add(kRemovedWork + namespaced_name(key, kSecrets) + "/" + account);
            }
          }
        } else if (key.rfind(kAccounts, 0) == 0) {
          if (e.type == store::Event::Type::Delete) {
            queue_.add(kAccountWork + namespaced_name(key, kAccounts));
          }
        } else if (key == kTrackingKey && e.type == store::Event::Type::Delete) {
          queue_.add(kTrackingWork);
        }
      }
    }
  }
  if (!followed_each_.empty()) {
    followed_ = *std::min_element(followed_each_.begin(), followed_each_.end());
  }
  if (lost) {
    watch_and_list();
  }
}

void TokenController::run() {
  serve_keys(
      queue_, [this] { follow(); },
      [this] {
        for (auto& w : watchers_) {
          w->request_progress();
        }
      },
      [this](const std::string& key) { work_on(key); });
}

void TokenController::follow() {
  const bool relist = std::exchange(relist_, false);
  relist_ = !run_guarded("token controller: follow secrets", [&] {
    if (relist) {
      watch_and_list();
    }
    drain_watches();
  });
  if (relist_) {
    queue_.add_after(kFollowKey, kRefollowDelay);
  }
}

void TokenController::work_on(const std::string& key) {
  work_guarded(queue_, key, {"token controller", "sync", "key", "its next change"}, [&] {
    auto split = [&](const std::string& prefix) {
      const std::string rest = key.substr(prefix.size());
      const size_t slash = rest.find('/');
      return std::pair{rest.substr(0, slash),
                       slash == std::string::npos ? "" : rest.substr(slash + 1)};
    };
    if (key == kTrackingWork) {
      ensure_tracking();
    } else if (key.rfind(kSecretWork, 0) == 0) {
      auto [ns, name] = split(kSecretWork);
      sync_secret(ns, name);
    } else if (key.rfind(kRemovedWork, 0) == 0) {
      auto [ns, rest] = split(kRemovedWork);
      const size_t slash = rest.find('/');
      forget_secret(ns, rest.substr(0, slash),
                    slash == std::string::npos ? "" : rest.substr(slash + 1));
    } else if (key.rfind(kAccountWork, 0) == 0) {
      auto [ns, name] = split(kAccountWork);
      sync_deleted_account(ns, name);
    } else if (key.rfind(kLastUsedWork, 0) == 0) {
      auto [ns, name] = split(kLastUsedWork);
      mark_used(ns, name);
    }
  });
}

void TokenController::sync_secret(const std::string& ns, const std::string& name) {
  int64_t revision = 0;
  auto secret = read_object(storage_, kSecrets + ns + "/" + name, &revision);
  auto send = [&](http::Request request) { client_(request); };
  const std::string manager = kManager;
  if (!secret || string_at(*secret, {"type"}) != kTokenType) {
    return;
  }
  const std::string account_name = string_at(*secret, {"metadata", "annotations", kNameAnnotation});
  const std::string account_uid = string_at(*secret, {"metadata", "annotations", kUidAnnotation});
  auto account = read_object(storage_, kAccounts + ns + "/" + account_name);
  const std::string uid = account ? string_at(*account, {"metadata", "uid"}) : "";
  if (!account || (!account_uid.empty() && account_uid != uid)) {
    const std::string secret_uid = string_at(*secret, {"metadata", "uid"});
    send(request_as(
        manager, {}, "DELETE", "/api/v1/namespaces/" + ns + "/secrets/" + name,
        {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"preconditions", {{"uid", secret_uid}}}},
        manager_agent()));
    return;
  }
  const bool needs_ca = !root_ca_pem_.empty() && decoded_data(*secret, "ca.crt") != root_ca_pem_;
  const bool needs_namespace = decoded_data(*secret, "namespace").empty();
  const bool needs_token = decoded_data(*secret, "token").empty();
  if (!needs_ca && !needs_namespace && !needs_token) {
    return;
  }
  json& data = (*secret)["data"];
  if (!data.is_object()) {
    data = json::object();
  }
  if (needs_ca) {
    data["ca.crt"] = common::base64_encode(root_ca_pem_);
  }
  if (needs_namespace) {
    data["namespace"] = common::base64_encode(ns);
  }
  if (needs_token) {
    data["token"] = common::base64_encode(
        tokens_.sign_legacy(serviceaccount::legacy_claims(ns, account_name, uid, name)));
  }
  json& annotations = (*secret)["metadata"]["annotations"];
  annotations[kNameAnnotation] = account_name;
  annotations[kUidAnnotation] = uid;
  (*secret)["metadata"]["resourceVersion"] = std::to_string(revision);
  // A Conflict means a newer Secret, which the watch brings back here.
  send(request_as(manager, {}, "PUT", "/api/v1/namespaces/" + ns + "/secrets/" + name, *secret,
                  manager_agent()));
}

void TokenController::forget_secret(const std::string& ns, const std::string& secret,
                                    const std::string& account_name) {
  int64_t revision = 0;
  auto account = read_object(storage_, kAccounts + ns + "/" + account_name, &revision);
  const json* listed = account ? registry::find_path(*account, {"secrets"}) : nullptr;
  if (listed == nullptr || !listed->is_array()) {
    return;
  }
  json kept = json::array();
  for (const json& ref : *listed) {
    if (string_at(ref, {"name"}) != secret) {
      kept.push_back(ref);
    }
  }
  if (kept.size() == listed->size()) {
    return;
  }
  (*account)["secrets"] = std::move(kept);
  (*account)["metadata"]["resourceVersion"] = std::to_string(revision);
  http::Request request = request_as(
      kManager, {}, "PUT", "/api/v1/namespaces/" + ns + "/serviceaccounts/" + account_name,
      *account, manager_agent());
  client_(request);  // a Conflict: the account changed; the list is looked at on its next use
}

void TokenController::sync_deleted_account(const std::string& ns, const std::string& name) {
  if (read_object(storage_, kAccounts + ns + "/" + name)) {
    return;  // there again
  }
  storage::ListResult secrets;
  if (storage_.list(kSecrets + ns + "/", "", 0, 0, secrets)) {
    return;
  }
  for (const auto& item : secrets.items) {
    json secret = json::parse(item.value, nullptr, false);
    if (string_at(secret, {"type"}) == kTokenType &&
        string_at(secret, {"metadata", "annotations", kNameAnnotation}) == name) {
      queue_.add(kSecretWork + ns + "/" + name_of(item.key));  // deleted there
    }
  }
}

void TokenController::mark_used(const std::string& ns, const std::string& name) {
  auto secret = read_object(storage_, kSecrets + ns + "/" + name);
  if (!secret) {
    return;
  }
  const auto now = clock_.system_now();
  const std::string today = serviceaccount::utc_date(now);
  const std::string last =
      string_at(*secret, {"metadata", "labels", serviceaccount::kLastUsedLabel});
  if (last == today || last == serviceaccount::utc_date(now + std::chrono::hours(24))) {
    return;
  }
  json patch = {{"kind", "Secret"},
                {"apiVersion", "v1"},
                {"metadata",
                 {{"name", name},
                  {"namespace", ns},
                  {"uid", string_at(*secret, {"metadata", "uid"})},
                  {"labels", {{serviceaccount::kLastUsedLabel, today}}}}}};
  http::Request request =
      request_as("system:apiserver", {"system:masters"}, "PATCH",
                 "/api/v1/namespaces/" + ns + "/secrets/" + name, patch, apiserver_agent());
  request.headers["Content-Type"] = "application/merge-patch+json";
  client_(request);
}

void TokenController::ensure_tracking() {
  if (read_object(storage_, kTrackingKey)) {
    return;
  }
  http::Request request = request_as(
      "system:apiserver", {"system:masters"}, "POST", "/api/v1/namespaces/kube-system/configmaps",
      {{"apiVersion", "v1"},
       {"kind", "ConfigMap"},
       {"metadata", {{"name", kTrackingConfigMap}, {"namespace", "kube-system"}}},
       {"data", {{"since", serviceaccount::utc_date(clock_.system_now())}}}},
      apiserver_agent());
  client_(request);  // AlreadyExists: someone was quicker
}

}  // namespace apiserver::controllers
