#include "controllers/namespace_defaults.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "controllers/controller_queue.h"
#include "controllers/controller_request.h"
#include "guard.h"

namespace apiserver::controllers {
namespace {

using nlohmann::json;

// After following the watches failed, the next try (watching and listing again).
constexpr auto kRefollowDelay = std::chrono::seconds(1);
const char* const kServiceAccount = "default";
const char* const kRootCaConfigMap = "kube-root-ca.crt";
const char* const kRoots[] = {"/registry/namespaces/", "/registry/serviceaccounts/",
                              "/registry/configmaps/"};

// The namespace an object key under `root` belongs to: /registry/<x>/<ns>/<name> -> <ns>.
std::string namespace_of(const std::string& key, const std::string& root) {
  if (key.compare(0, root.size(), root) != 0) {
    return "";
  }
  std::string rest = key.substr(root.size());
  return rest.substr(0, rest.find('/'));
}

}  // namespace

NamespaceDefaultsController::NamespaceDefaultsController(storage::Storage& storage, Client client,
                                                         std::string root_ca_pem,
                                                         bool default_service_account,
                                                         const common::Clock& clock)
    : storage_(storage),
      client_(std::move(client)),
      root_ca_pem_(std::move(root_ca_pem)),
      default_service_account_(default_service_account),
      queue_(queue_options(), clock) {}

NamespaceDefaultsController::~NamespaceDefaultsController() {
  stop_following(queue_, thread_, watchers_);
}

void NamespaceDefaultsController::start() {
  watch_and_list(true);
  thread_ = std::thread([this] { run(); });
}

// Watch first, then list: nothing that happens in between is missed. At start-up the namespaces
// are reconciled at once; later (a watch was cut off) they are queued.
void NamespaceDefaultsController::watch_and_list(bool now) {
  cancel_watches(watchers_);
  int64_t from = storage_.current_revision() + 1;
  for (const char* root : kRoots) {
    auto watcher = storage_.watch(root, root, false, from);
    if (watcher) {
      watcher->set_notify([this] { queue_.add(kFollowKey); });
      watchers_.push_back(std::move(watcher));
    }
  }
  storage::ListResult namespaces;
  if (!storage_.list("/registry/namespaces/", "", 0, 0, namespaces)) {
    for (const auto& item : namespaces.items) {
      if (now) {
        work_on(name_of(item.key));
      } else {
        enqueue(name_of(item.key));
      }
    }
    followed_each_.assign(watchers_.size(), from - 1);  // the watches bring what comes after
    followed_ = from - 1;
  }
}

void NamespaceDefaultsController::request_progress() {
  queue_.add(kProgressKey);  // the watchers belong to the controller thread
}

void NamespaceDefaultsController::enqueue(const std::string& ns) {
  queue_.add(ns);  // refused when full: looked at on its next change
}

// Turns watch events into namespaces to look at.
void NamespaceDefaultsController::drain_watches() {
  store::WatchResponse response;
  bool lost = false;
  followed_each_.resize(watchers_.size(), followed_);
  for (size_t i = 0; i < watchers_.size(); ++i) {
    auto& watcher = watchers_[i];
    while (watcher->try_next(response)) {
      lost = lost || response.canceled;
      if (!response.canceled) {
        followed_each_[i] = std::max(followed_each_[i], response.header.revision);
      }
      for (const auto& e : response.events) {
        const std::string& key = e.kv.key;
        if (key.rfind("/registry/namespaces/", 0) == 0) {
          if (e.type == store::Event::Type::Put) {
            enqueue(name_of(key));
          }
        } else if (key.rfind("/registry/serviceaccounts/", 0) == 0) {
          if (name_of(key) == kServiceAccount && e.type == store::Event::Type::Delete) {
            enqueue(namespace_of(key, "/registry/serviceaccounts/"));
          }
        } else if (name_of(key) == kRootCaConfigMap) {
          enqueue(namespace_of(key, "/registry/configmaps/"));
        }
      }
    }
  }
  if (!followed_each_.empty()) {
    followed_ = *std::min_element(followed_each_.begin(), followed_each_.end());
  }
  if (lost) {
    watch_and_list(false);  // a watch was cut off: start over and look at every namespace
  }
}

void NamespaceDefaultsController::run() {
  serve_keys(
      queue_, [this] { follow(); },
      [this] {
        for (auto& w : watchers_) {
          w->request_progress();  // the answers come as watch responses: kFollowKey
        }
      },
      [this](const std::string& ns) { work_on(ns); });
}

void NamespaceDefaultsController::follow() {
  const bool relist = std::exchange(relist_, false);
  // A failure, wherever it happened, leaves the watches in doubt: watch and list again later.
  relist_ = !run_guarded("namespace defaults controller: follow namespaces", [&] {
    if (relist) {
      watch_and_list(false);
    }
    drain_watches();
  });
  if (relist_) {
    queue_.add_after(kFollowKey, kRefollowDelay);
  }
}

void NamespaceDefaultsController::work_on(const std::string& ns) {
  work_guarded(queue_, ns,
               {"namespace defaults controller", "reconcile", "namespace", "its next change"},
               [&] { reconcile(ns); });
}

void NamespaceDefaultsController::reconcile(const std::string& ns) {
  storage::Object ns_object;
  if (ns.empty() || storage_.get("/registry/namespaces/" + ns, ns_object)) {
    return;  // gone
  }
  json namespace_json = json::parse(ns_object.value, nullptr, false);
  if (!namespace_json.is_object() ||
      namespace_json.value("/status/phase"_json_pointer, "") == "Terminating") {
    return;  // nothing new goes into a namespace that is being deleted
  }
  auto call = [&](const std::string& method, const std::string& path, const json& body,
                  const std::string& user) {
    http::Request request = controller_request(method, path, body, user);
    client_(request);  // AlreadyExists or Conflict: a newer state wins; the watch brings us back
  };
  storage::Object existing;
  if (default_service_account_ &&
      storage_.get("/registry/serviceaccounts/" + ns + "/" + kServiceAccount, existing).kind ==
          storage::ErrorKind::NotFound) {
    call("POST", "/api/v1/namespaces/" + ns + "/serviceaccounts",
         {{"apiVersion", "v1"},
          {"kind", "ServiceAccount"},
          {"metadata", {{"name", kServiceAccount}, {"namespace", ns}}}},
         "service-account-controller");
  }
  if (root_ca_pem_.empty()) {
    return;
  }
  json data = {{"ca.crt", root_ca_pem_}};
  std::string cm_path = "/api/v1/namespaces/" + ns + "/configmaps";
  auto error = storage_.get("/registry/configmaps/" + ns + "/" + kRootCaConfigMap, existing);
  if (error.kind == storage::ErrorKind::NotFound) {
    call("POST", cm_path,
         {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", kRootCaConfigMap}, {"namespace", ns}}},
          {"data", data}},
         "root-ca-cert-publisher");
    return;
  }
  json current = json::parse(existing.value, nullptr, false);
  if (!error && current.is_object() && current.value("data", json()) != data) {
    current["data"] = data;
    current["metadata"]["resourceVersion"] = std::to_string(existing.mod_revision);
    call("PUT", cm_path + "/" + kRootCaConfigMap, current, "root-ca-cert-publisher");
  }
}

}  // namespace apiserver::controllers
