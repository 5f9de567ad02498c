// Legacy service-account token Secrets, as kube-controller-manager's tokens controller keeps
// them, and the tracking of their use, as kube-apiserver does in v1.32:
//
// - A Secret of type kubernetes.io/service-account-token whose kubernetes.io/service-account.name
//   annotation names an existing service account (and whose kubernetes.io/service-account.uid,
//   when set, is that account's) gets data.token (a legacy token, issuer
//   "kubernetes/serviceaccount", which never expires), data["ca.crt"] (the cluster CA) and
//   data.namespace, and both annotations. One that names no such account is deleted, and so are
//   an account's token Secrets once the account is deleted; a deleted Secret leaves the account's
//   secrets list. These writes are made as system:kube-controller-manager.
// - When a legacy token authenticates and its Secret's kubernetes.io/legacy-token-last-used label
//   is not today's date (UTC), the label is set to it (a merge patch as system:apiserver); the
//   authenticator only queues the Secret here, since it runs on the network thread.
// - kube-system/kube-apiserver-legacy-service-account-token-tracking holds the date tracking
//   began ("since"); it is created at start and again when deleted.
//
// One thread takes the work from a common::WorkQueue (see controller_queue.h): the keys name a
// Secret ("secret <ns>/<name>"), a deleted token Secret ("removed <ns>/<name>/<account>"), a
// deleted account ("account <ns>/<name>"), a Secret whose label is due ("last-used <ns>/<name>"),
// or the tracking ConfigMap ("tracking"), plus kFollowKey and kProgressKey.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/http.h"
#include "common/clock.h"
#include "common/work_queue.h"
#include "serviceaccount/service_account_tokens.h"
#include "storage/storage.h"

namespace apiserver::controllers {

class TokenController {
 public:
  using Client = std::function<http::Response(http::Request&)>;

  // `tokens` signs the legacy tokens (the controller does nothing unless it issues tokens);
  // `root_ca_pem` goes into ca.crt (empty: none). `tokens` and `clock` must outlive it.
  TokenController(storage::Storage& storage, Client client,
                  const serviceaccount::ServiceAccountTokens& tokens, std::string root_ca_pem,
                  const common::Clock& clock = common::Clock::real());
  ~TokenController();

  // Lists what is there and follows changes on the controller's thread.
  void start();
  // A legacy token of this Secret was used: its last-used label is due (any thread).
  void legacy_token_used(const std::string& ns, const std::string& name);

  // For tests, as the other controllers (namespace_defaults.h).
  const common::WorkQueue& queue() const { return queue_; }
  void request_progress();
  int64_t followed_revision() const { return followed_.load(); }

 private:
  void run();
  void follow();
  void drain_watches();
  void watch_and_list();
  void work_on(const std::string& key);
  void sync_secret(const std::string& ns, const std::string& name);
  void sync_deleted_account(const std::string& ns, const std::string& name);
  // A token Secret was deleted: its account stops listing it.
  void forget_secret(const std::string& ns, const std::string& secret,
                     const std::string& account_name);
  void mark_used(const std::string& ns, const std::string& name);
  void ensure_tracking();

  storage::Storage& storage_;
  Client client_;
  const serviceaccount::ServiceAccountTokens& tokens_;
  const std::string root_ca_pem_;
  const common::Clock& clock_;
  // Used by the controller thread only (and start() before it runs).
  std::vector<std::shared_ptr<store::Watcher>> watchers_;
  std::vector<int64_t> followed_each_;
  bool relist_ = false;
  common::WorkQueue queue_;  // thread-safe on its own
  std::atomic<int64_t> followed_{0};
  std::thread thread_;
};

}  // namespace apiserver::controllers
