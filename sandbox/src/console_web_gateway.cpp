#include "console_web_gateway.h"

#include <openssl/rand.h>
#include <pthread.h>
#include <signal.h>

#include <array>
#include <ostream>

#include "apiserver/remote_cluster.h"
#include "browser_open.h"
#include "common/hex.h"
#include "console/client/rest_client.h"
#include "web_console_endpoint.h"

namespace sandbox {
namespace {

constexpr std::chrono::seconds kStopGrace{2};

std::string new_login_token() {
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    return {};
  }
  return common::lower_hex(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace

int run_web_console_gateway(const std::string& kubeconfig, const ParsedFlags& flags,
                            CommandContext& ctx) {
  auto fail = [&](const std::string& why) {
    ctx.err << "kube-sandbox console: --web: " << why << "\n";
    return kExitFailure;
  };
  auto access = console::client::load_kubeconfig(kubeconfig, flags.get("context"));
  if (!access.ok()) {
    return fail(access.error());
  }
  auto listen = web_listen(flags);
  if (!listen) {
    return fail(listen.error());
  }
  if (!listen->host) {
    return fail("--web-listen none leaves nothing to open");
  }
  apiserver::RemoteCluster cluster;
  cluster.server = access->server;
  cluster.ca_pem = access->ca_pem;
  cluster.insecure_skip_verify = access->insecure;
  cluster.client_cert_pem = access->client_cert_pem;
  cluster.client_key_pem = access->client_key_pem;
  cluster.token = access->token;
  auto api = apiserver::remote_cluster_handler(std::move(cluster));
  if (!api) {
    return fail(api.error());
  }
  const std::string token = new_login_token();
  if (token.empty()) {
    return fail("could not draw a random login token");
  }
  // Signals are taken by sigwait below; block them before the listener's threads start.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // Sessions by the login token call the cluster with the kubeconfig's credentials (no bearer
  // token of the console's own); token sign-ins with the user's token.
  auto web = start_web_console(*listen, std::move(*api), token, "");
  if (!web) {
    return fail(web.error());
  }
  if (!web->warning.empty()) {
    ctx.err << "kube-sandbox console: " << web->warning << "\n";
  }
  const std::string url = web->login_url();
  ctx.out << "kube-sandbox: the web console for context \"" << access->context << "\" ("
          << access->server << ") is served at " << web->url() << " until interrupted (Ctrl-C)\n";
  if (open_in_browser(url)) {
    ctx.out << "kube-sandbox: the web console is open in the browser\n";
  } else {
    ctx.out << "kube-sandbox: open the web console in a browser on this machine: " << url << "\n";
  }
  ctx.out << std::flush;
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  ctx.out << "kube-sandbox: " << (signal_number == SIGINT ? "interrupted" : "terminated")
          << ", the web console stops\n"
          << std::flush;
  web->server->stop(kStopGrace);
  return kExitOk;
}

}  // namespace sandbox
