// The admin endpoint for named snapshots of the store (apiserver/snapshots.h), allowed to users
// in the group system:masters only:
//
//   GET    /admin/snapshots                  the snapshots (SnapshotList)
//   GET    /admin/snapshots/{name}           one (Snapshot)
//   POST   /admin/snapshots/{name}           save: 201 Created, or 200 when it replaced one
//   POST   /admin/snapshots/{name}/restore   restore: 200 with what changed (SnapshotRestore)
//   DELETE /admin/snapshots/{name}           delete: 200 with what it was (Snapshot)
//
// Errors are metav1 Status objects as kube-apiserver words them: 403 Forbidden (not in
// system:masters), 400 BadRequest (a name outside [a-z0-9][a-z0-9._-]{0,62}), 404 NotFound (no
// such snapshot), 405 MethodNotAllowed, 500 InternalError. Request bodies are ignored.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "apiserver/http.h"
#include "apiserver/snapshots.h"
#include "store/store.h"

namespace apiserver::endpoints {

class SnapshotEndpoint {
 public:
  // Restores a snapshot the way the server needs it done (the store, then what the server
  // keeps in memory); see ApiServer.
  using Restore =
      std::function<snapshots::Error(const std::string& name, snapshots::Restored& out)>;

  // `dir` empty: the server keeps no snapshots and the paths answer 404. `refusal` set: why the
  // server cannot keep them (its store is an etcd cluster's); every path answers it, 400.
  SnapshotEndpoint(store::Store& store, std::filesystem::path dir, Restore restore,
                   std::string refusal = "");

  // True for /admin/snapshots and the paths below it.
  static bool handles(const std::string& path);
  // `request` went through authentication (user and groups are set).
  http::Response serve(const http::Request& request);

 private:
  store::Store& store_;
  const std::filesystem::path dir_;
  const Restore restore_;
  const std::string refusal_;
};

}  // namespace apiserver::endpoints
