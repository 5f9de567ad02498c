// One API server per fuzzing process, on an ephemeral store, driven through ApiServer::handle as
// the HTTPS server drives it. Made on first use; never destroyed (libFuzzer ends the process).
//
// Bounded: every kResetEvery requests the store goes back to what it held after bootstrap (a
// named-snapshot restore, as POST /admin/snapshots/NAME/restore does it), and the snapshots
// the inputs saved through /admin/snapshots are deleted. A long run therefore keeps the store,
// the watch caches and the temporary directory small.
//
// Not thread-safe: libFuzzer calls a target from one thread.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "apiserver/apiserver.h"
#include "store/store.h"

namespace fuzz {

class ApiHarness {
 public:
  // Bearer token of the admin user (group system:masters).
  static constexpr const char* kAdminToken = "fuzz-admin-token";
  static constexpr int kResetEvery = 200;

  static ApiHarness& get();

  // Authenticates as the admin unless the request carries its own Authorization header, then
  // answers it as the server would: answers_quickly() (the network thread's check), then
  // handle(). A streamed answer (a watch) has its ready chunks read and is closed.
  apiserver::http::Response send(apiserver::http::Request& request);

 private:
  ApiHarness();
  void reset();

  std::filesystem::path dir_;  // temporary: base/ (the pristine snapshot) and snapshots/
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<apiserver::ApiServer> api_;
  int sent_ = 0;
};

}  // namespace fuzz
